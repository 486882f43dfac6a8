package progress

import (
	"slices"
	"testing"
)

const block = "## Iteration 1\n**Command:** `t`\n**Exit code:** 1\n**Duration:** 1ms\n**Files changed:** none\n**Output:**\n```\nboom <<task>>\n```\n\n"

func TestFill(t *testing.T) {
	set := map[string]string{"task": "fix the parser", "spec": "SPEC.md"}
	tmpl := "Task: <<task>>\n\n<<#if progress>>\n## Previous iterations\n\n<<progress>>\n<</if>>\nSpec: <<spec>>\n"
	for _, c := range []struct {
		name, tmpl, block string
		set               map[string]string
		appendProgress    bool
		want              string
		unknown           []string
	}{
		{"with progress", tmpl, block, set, false,
			"Task: fix the parser\n\n## Previous iterations\n\n" + block + "\nSpec: SPEC.md\n", nil},
		{"without progress", tmpl, "", set, false,
			"Task: fix the parser\n\nSpec: SPEC.md\n", nil},
		{"unknown placeholder left and reported once", "<<task>> <<who>> <<who>> <<when>>", "", map[string]string{"task": "T"}, false,
			"T <<who>> <<who>> <<when>>", []string{"who", "when"}},
		{"not placeholders", "a << b >> <<1x>> <<>> <<a b>> << <<x", "", nil, false,
			"a << b >> <<1x>> <<>> <<a b>> << <<x", nil},
		{"values are not expanded again", "<<a>><<progress>>", block, map[string]string{"a": "<<progress>>"}, false,
			"<<progress>>" + block, nil},
		{"markers with blanks and CRLF", "x\r\n  <<#if progress>>  \r\nshown\r\n<</if>>\r\ny", "", nil, false,
			"x\r\ny", nil},
		{"unclosed if kept and reported", "a\n<<#if progress>>\nb\n", "", nil, false,
			"a\n<<#if progress>>\nb\n", []string{"#if progress"}},
		{"two sections", "<<#if progress>>\n1\n<</if>>\nmid\n<<#if progress>>\n2\n<</if>>\n", block, nil, false,
			"1\nmid\n2\n", nil},
		{"marker inside a line is text", "say <<#if progress>> here\n", "", nil, false,
			"say <<#if progress>> here\n", nil},
		{"append after a text ending in newline", "Do the task.\n", block, nil, true,
			"Do the task.\n\n" + AppendHeading + block, nil},
		{"append after a text without newline", "Do the task.", block, nil, true,
			"Do the task.\n\n" + AppendHeading + block, nil},
		{"append after a blank line", "Do the task.\n\n", block, nil, true,
			"Do the task.\n\n" + AppendHeading + block, nil},
		{"append to an empty template", "", block, nil, true, AppendHeading + block, nil},
		{"append without progress adds nothing", "Do the task.\n", "", nil, true, "Do the task.\n", nil},
		{"append with a placeholder does not append", "P:\n<<progress>>", block, nil, true, "P:\n" + block, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, unknown := Fill(c.tmpl, c.block, c.set, c.appendProgress)
			if got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
			if !slices.Equal(unknown, c.unknown) {
				t.Errorf("unknown = %q, want %q", unknown, c.unknown)
			}
		})
	}
}
