//go:build !linux

package loopstep

import (
	"io"
	"strings"
)

// promptInput is the prompt as the agent's stdin (a pipe), and what
// closes it.
func promptInput(prompt string) (io.Reader, func()) {
	return strings.NewReader(prompt), func() {}
}
