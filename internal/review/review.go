// Package review reads a reviewer's verdict and builds the reviewer's
// prompt: the task and the diff of the iteration under review.
package review

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/quote"
	"github.com/loopkit/loopkit/internal/record"
)

// DefaultMarker is the tag a reviewer wraps its verdict in:
// <review>APPROVE</review> or <review>CHANGES: what to change</review>.
const DefaultMarker = "review"

// Verdicts.
const (
	Approve = "approve"
	Changes = "changes"
	None    = "none" // no verdict found: treated as changes by the driver
)

// Verdict is what a reviewer said.
type Verdict struct {
	Kind string
	// Notes are the requested changes (Changes), or why no verdict was
	// understood (None).
	Notes string
}

// Parse finds the last <marker>…</marker> in text (a reviewer may quote
// the instructions before answering) and reads it: APPROVE, or CHANGES
// followed by the requested changes. Case and spaces around the words do
// not matter; anything else is None.
func Parse(text, marker string) Verdict {
	if marker == "" {
		marker = DefaultMarker
	}
	open, closing := "<"+marker+">", "</"+marker+">"
	end := strings.LastIndex(text, closing)
	if end < 0 {
		return Verdict{Kind: None, Notes: fmt.Sprintf("no %s…%s verdict in the reviewer's answer", open, closing)}
	}
	start := strings.LastIndex(text[:end], open)
	if start < 0 {
		return Verdict{Kind: None, Notes: fmt.Sprintf("%s without %s in the reviewer's answer", closing, open)}
	}
	body := strings.TrimSpace(text[start+len(open) : end])
	word, rest, _ := strings.Cut(body, ":")
	switch strings.ToUpper(strings.TrimSpace(word)) {
	case "APPROVE", "APPROVED":
		if strings.TrimSpace(rest) == "" {
			return Verdict{Kind: Approve}
		}
	case "CHANGES":
		notes := strings.TrimSpace(rest)
		if notes == "" {
			notes = "the reviewer asked for changes without saying which"
		}
		return Verdict{Kind: Changes, Notes: notes}
	}
	return Verdict{Kind: None, Notes: fmt.Sprintf("verdict %q is neither APPROVE nor CHANGES: …", truncate(body, 80))}
}

// MaxDiffBytes bounds the diff quoted into a review prompt; a larger
// change is shown as a summary (see loop-step --review).
const MaxDiffBytes = 200 << 10

// Prompt is the reviewer's prompt: the task, the run's plan as the step
// left it (plan, already its section, or ""), the diff of the step that
// will be iteration n (cut at MaxDiffBytes) and how to answer.
func Prompt(task, plan, diff, marker string, n int) string {
	if marker == "" {
		marker = DefaultMarker
	}
	var b strings.Builder
	fmt.Fprintf(&b, "You are reviewing the changes an agent just made in iteration %d of a loop working on the task below; the checks have not run yet. Do not edit any file.\n\n", n)
	b.WriteString("## Task\n\n")
	b.WriteString(strings.TrimSpace(task))
	b.WriteString(plan)
	b.WriteString("\n\n## Changes\n\n")
	switch {
	case strings.TrimSpace(diff) == "":
		b.WriteString("The iteration changed no file (or its changes are unknown: the work tree is not in git).\n")
	default:
		cut := len(diff) > MaxDiffBytes
		if cut { // at a character's start: not half of one, which the agent reads as U+FFFD
			n := MaxDiffBytes
			for n > MaxDiffBytes-utf8.UTFMax && !utf8.RuneStart(diff[n]) {
				n--
			}
			diff = diff[:n]
		}
		// a context line " ```" of a markdown file would close a fixed fence
		// and go on as the agent's own "## Your answer"
		diff = strings.TrimRight(diff, "\n")
		fence := record.Fence(diff)
		b.WriteString(fence + "diff\n" + diff + "\n" + fence + "\n")
		if cut {
			fmt.Fprintf(&b, "\n(The diff was cut at %d bytes; read the rest in the work tree.)\n", MaxDiffBytes)
		}
	}
	fmt.Fprintf(&b, "\n## Your answer\n\nEnd your answer with exactly one verdict: <%s>APPROVE</%s> when the changes are correct and complete for the task so far, or <%s>CHANGES: what must change</%s>, naming each change the next iteration must make.\n", marker, marker, marker, marker)
	return b.String()
}

// NextPrompt is the section the next implementation prompt carries after a
// review that did not approve: the changes a reviewer asked for, or, when
// it gave no verdict (its call failed, its answer had none), only that, so
// the agent is never told of requests nobody made.
func NextPrompt(iteration int, v Verdict) string {
	notes := strings.TrimSpace(v.Notes)
	if v.Kind != Changes {
		if notes == "" {
			notes = "its answer had no verdict"
		}
		// why, on its line: it may quote the reviewer CLI's error text
		notes = quote.Line(notes)
		return fmt.Sprintf("## Review\n\nThe review of iteration %d gave no verdict (%s), so the work is not accepted yet; it will be reviewed again after this iteration.\n", iteration, notes)
	}
	// the requests are Markdown: their headings kept inside this section,
	// before the progress block's entries
	return fmt.Sprintf("## Reviewer's requested changes\n\nA reviewer read the changes of iteration %d and asked for these changes before the work can be accepted:\n\n%s\n", iteration, record.Demoted(notes))
}

// truncate is s's first n characters: a cut by bytes showed a CJK
// verdict's last character as \xe6\x97 in its %q.
func truncate(s string, n int) string { return record.HeadChars(s, n) }
