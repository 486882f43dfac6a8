#!/bin/sh
# A fast stand-in for `go test` in the driver's tests: fails while calc.go has bugs.
if grep -n 'BUG(' calc.go; then
  echo "FAIL: bugs left in calc.go" >&2
  exit 1
fi
echo "ok: no bugs left"
