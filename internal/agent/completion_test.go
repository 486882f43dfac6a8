package agent

import "testing"

func TestCompletion(t *testing.T) {
	const m = DefaultMarker
	type want struct{ completed, malformed bool }
	for _, c := range []struct {
		name            string
		final           string
		trailing, exact want
	}{
		{"bare marker", m, want{true, false}, want{true, false}},
		{"surrounding whitespace", "\n  " + m + " \t\n\n", want{true, false}, want{true, false}},
		{"prefix text on lines before", "All tests pass.\n\n" + m, want{true, false}, want{false, true}},
		{"prefix text on the line", "Done: " + m, want{false, true}, want{false, true}},
		{"suffix text on the line", m + " done", want{false, true}, want{false, true}},
		{"marker not last", m + "\nOne more thing.", want{false, true}, want{false, true}},
		{"marker inside a line", "I will print " + m + " when done", want{false, true}, want{false, true}},
		{"no marker", "still working", want{false, false}, want{false, false}},
		{"empty", "", want{false, false}, want{false, false}},
		{"whitespace only", " \n\t\n ", want{false, false}, want{false, false}},
		{"crlf lines", "ok\r\n" + m + "\r\n", want{true, false}, want{false, true}},
	} {
		for _, mode := range []struct {
			name string
			want want
		}{{ModeTrailing, c.trailing}, {ModeExact, c.exact}} {
			done, bad := Completion(c.final, m, mode.name)
			if done != mode.want.completed || bad != mode.want.malformed {
				t.Errorf("%s / %s: completed=%v malformed=%v, want %v %v", c.name, mode.name, done, bad, mode.want.completed, mode.want.malformed)
			}
		}
	}
}
