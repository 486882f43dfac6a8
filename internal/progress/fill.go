package progress

import (
	"fmt"
	"strings"
)

// Template markers.
const (
	Placeholder = "<<progress>>"
	IfProgress  = "<<#if progress>>"
	EndIf       = "<</if>>"
)

// AppendHeading opens the section --append-progress adds after a template
// that has no <<progress>> placeholder.
const AppendHeading = "## Previous Iterations\n\nDo NOT repeat approaches that already failed.\n\n"

// Fill fills a template in one pass, so text coming from the block or from
// set (validation output may contain "<<x>>") is never expanded again.
//
//   - <<progress>> is replaced by block;
//   - lines from a line <<#if progress>> to a line <</if>> (surrounding
//     blanks allowed) are kept only when block != ""; the marker lines are
//     dropped. An <<#if progress>> with no <</if>> is left as text and
//     reported in unknown as "#if progress";
//   - other <<name>> are filled from set; those not in set are left as they
//     are and returned in unknown (each once, in order of appearance);
//   - with appendProgress, a template without <<progress>> gets, when block
//     != "", a blank line (the template's last line is ended first) then
//     AppendHeading then block.
func Fill(template, block string, set map[string]string, appendProgress bool) (out string, unknown []string) {
	body, unclosed := conditional(template, block != "")
	var b strings.Builder
	b.Grow(len(body) + len(block))
	seen := map[string]bool{}
	report := func(name string) {
		if !seen[name] {
			seen[name] = true
			unknown = append(unknown, name)
		}
	}
	if unclosed {
		report("#if progress")
	}
	for {
		i := strings.Index(body, "<<")
		if i < 0 {
			b.WriteString(body)
			break
		}
		b.WriteString(body[:i])
		name, n := placeholderAt(body[i:])
		switch {
		case n == 0:
			b.WriteString("<<")
			body = body[i+2:]
			continue
		case name == "progress":
			b.WriteString(block)
		default:
			if v, ok := set[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(body[i : i+n])
				report(name)
			}
		}
		body = body[i+n:]
	}
	out = b.String()
	if appendProgress && block != "" && !strings.Contains(template, Placeholder) {
		out = withBlankLine(out) + AppendHeading + block
	}
	return out, unknown
}

// placeholderAt returns the name of the <<name>> at the start of s and its
// length in bytes, or 0 when s does not start with one. A name is a letter
// or '_' followed by letters, digits, '_', '-' or '.'.
func placeholderAt(s string) (string, int) {
	end := strings.Index(s[2:], ">>")
	if end <= 0 {
		return "", 0
	}
	name := s[2 : 2+end]
	for i, r := range name {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '-' || r == '.')) {
			return "", 0
		}
	}
	return name, end + 4
}

// conditional keeps or drops the <<#if progress>> ... <</if>> sections.
// unclosed reports an opening line without its closing line; from there on
// the text is kept as it is.
func conditional(template string, keep bool) (string, bool) {
	if !strings.Contains(template, IfProgress) {
		return template, false
	}
	lines := strings.SplitAfter(template, "\n")
	var b strings.Builder
	for i := 0; i < len(lines); i++ {
		if !isMarker(lines[i], IfProgress) {
			b.WriteString(lines[i])
			continue
		}
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if isMarker(lines[j], EndIf) {
				end = j
				break
			}
		}
		if end < 0 {
			for _, l := range lines[i:] {
				b.WriteString(l)
			}
			return b.String(), true
		}
		if keep {
			for _, l := range lines[i+1 : end] {
				b.WriteString(l)
			}
		}
		i = end
	}
	return b.String(), false
}

func isMarker(line, marker string) bool {
	return strings.TrimSpace(line) == marker
}

// withBlankLine ends s with a blank line, so what follows starts a new
// paragraph; an empty s stays empty.
func withBlankLine(s string) string {
	switch {
	case s == "" || strings.HasSuffix(s, "\n\n"):
		return s
	case strings.HasSuffix(s, "\n"):
		return s + "\n"
	}
	return s + "\n\n"
}

// ParseSets parses --set NAME=VALUE arguments into Fill's set. "progress"
// cannot be set: <<progress>> is the rendered block.
func ParseSets(kvs []string) (map[string]string, error) {
	set := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--set %q: want NAME=VALUE", kv)
		}
		if k == "progress" {
			return nil, fmt.Errorf("--set progress: <<progress>> is the rendered block and cannot be set")
		}
		set[k] = v
	}
	return set, nil
}
