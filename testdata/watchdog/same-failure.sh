#!/bin/sh
# A validation that fails the same way each time, with what differs between
# two runs of one failing test: a duration, a temp path, an address, colour.
printf '\033[31m--- FAIL: TestAdd (0.0%ss)\033[0m\n' "$(date +%N | cut -c1-2)"
echo "    calc_test.go:9: Add(2, 2) = 0, want 4 (scratch $(mktemp -u), 0xc0000$$)"
echo "FAIL"
exit 1
