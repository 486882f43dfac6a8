package quote

import "strings"

// Errors is errors.Join said on one line ("; " between the errors, nil for
// none): a command's error and a log line are one line each, and
// errors.Join's newlines broke them (a literal \n once quoted).
func Errors(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return joined(errs)
}

type joined []error

func (j joined) Error() string {
	msgs := make([]string, len(j))
	for i, err := range j {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (j joined) Unwrap() []error { return j }
