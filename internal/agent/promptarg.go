package agent

import (
	"bytes"
	"fmt"
	"slices"
)

// PromptArg is the agent argument loop-step replaces with the prompt's text.
const PromptArg = "{prompt}"

// PromptArgMax is the largest prompt passed as an argument: beyond it
// command lines hit the kernel's per-argument limit (128 KiB on Linux).
const PromptArgMax = 100 << 10

// PromptGrowth is about what the progress block adds to a run's first
// prompt by the sixth (loop-step's defaults: 5 iterations, each its
// headings, 500 characters of output and 200 of the agent's summary).
const PromptGrowth = 5 * (500 + 200 + 300)

// PromptArgProblem says whether a prompt file of size bytes can go to
// the agent as its {prompt} argument: err when the file alone is too long
// (every step would fail), warn when the progress block may make a later
// prompt too long. Both are empty when argv has no {prompt}.
func PromptArgProblem(argv []string, name string, size int64) (err, warn string) {
	if len(argv) < 2 || !slices.Contains(argv[1:], PromptArg) {
		return "", ""
	}
	const hint = ": pass {prompt_file} instead (the path of a file holding the prompt)"
	switch {
	case size > PromptArgMax:
		return fmt.Sprintf("%s is %d bytes, too long for {prompt} (at most %d)%s", name, size, PromptArgMax, hint), ""
	case size+PromptGrowth > PromptArgMax:
		return "", fmt.Sprintf("%s is %d bytes: with the progress block a later prompt may pass the %d bytes {prompt} can take and fail the run%s", name, size, PromptArgMax, hint)
	}
	return "", ""
}

// PromptArgNUL is the error for a prompt given as {prompt} that holds a
// NUL byte, which no argument can carry (execve ends it there); "" when
// it has none or argv has no {prompt}.
func PromptArgNUL(argv []string, name string, prompt []byte) string {
	i := bytes.IndexByte(prompt, 0)
	if i < 0 || len(argv) < 2 || !slices.Contains(argv[1:], PromptArg) {
		return ""
	}
	return fmt.Sprintf("%s has a NUL byte at byte %d, which {prompt} cannot carry: pass {prompt_file} instead (the path of a file holding the prompt)", name, i)
}
