package merge

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Unrelated says why a cannot be merged into b when git finds no commit
// they share: in a shallow clone (a CI checkout, fetch depth 1) their
// common history was not fetched, else they have none. nil when they
// share one, or when git cannot tell (it then says why at the merge).
func Unrelated(dir, a, b string) error {
	_, err := git(dir, "merge-base", a, b)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		return nil
	}
	a, b = short(a), short(b)
	if out, _ := git(dir, "rev-parse", "--is-shallow-repository"); strings.TrimSpace(string(out)) == "true" {
		return fmt.Errorf("%s and %s share no commit in this shallow clone, so git cannot merge them: "+
			"fetch their history (git fetch --unshallow; actions/checkout: fetch-depth: 0)", a, b)
	}
	return fmt.Errorf("%s and %s share no history, so git cannot merge them: merge into a branch made from the base", a, b)
}

// short names a branch without refs/heads/, a commit id by its first 12
// digits (a detached HEAD's base).
func short(r string) string {
	r = strings.TrimPrefix(r, "refs/heads/")
	if (len(r) == 40 || len(r) == 64) && strings.Trim(r, "0123456789abcdef") == "" {
		return r[:12]
	}
	return r
}
