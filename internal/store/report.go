package store

import (
	"os"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/quote"
	"github.com/loopkit/loopkit/internal/record"
)

// ReportHeader is report.tsv's first line (bin/loop's columns).
const ReportHeader = "timestamp_ms\tkind\titeration\tduration_ms\texit_code\toutput_bytes\toutput_lines\toutput_path\tmessage\ttasks_done\ttasks_total"

// EventRow is an event's report.tsv row: every event has one (an
// iteration's own row stands for its ITERATION_RECORDED), with the columns
// its payload fills (a step's end: exit code, duration and output).
func EventRow(e record.Event) []string {
	num := func(p *int) string {
		if p == nil {
			return ""
		}
		return strconv.Itoa(*p)
	}
	dur, out := "", ""
	if e.DurationMs != nil {
		dur = strconv.FormatInt(*e.DurationMs, 10)
	}
	if e.OutputPath != nil {
		out = *e.OutputPath
	}
	return []string{strconv.FormatInt(e.TS, 10), e.Type, num(e.Iteration), dur, num(e.ExitCode), "", "", out, e.Message, "", ""}
}

// AppendReport appends rows to the report at path (in one write), its header first when
// the file is new or empty; tabs, line breaks and other control characters
// in a field become spaces: a message may quote the agent (a rate limit's
// evidence), and a report read with cat or column must not drive the
// terminal.
func AppendReport(path string, fields ...[]string) error {
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		if err := AppendLine(path, []byte(ReportHeader)); err != nil {
			return err
		}
	}
	lines := make([][]byte, len(fields))
	for i, f := range fields {
		lines[i] = ReportLine(f)
	}
	return AppendLines(path, lines...)
}

// ReportLine is a row's line in report.tsv, without its newline: the
// fields joined by tabs, a tab, line break or other control character
// inside one made a space.
func ReportLine(fields []string) []byte {
	clean := make([]string, len(fields))
	for i, f := range fields {
		clean[i] = quote.Blank(f)
	}
	return []byte(strings.Join(clean, "\t"))
}
