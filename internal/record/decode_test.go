package record

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeInputErrors(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"empty", "", "line 1: no records"},
		{"blank", "\n\n", "no records"},
		{"not json", "hello\n", "line 1: not JSON"},
		{"wrong type", `{"type":"validation","exit_code":"one"}` + "\n", `line 1: field "exit_code": wrong type: got JSON string, want int`},
		{"missing exit_code", `{"type":"validation","command":"x"}` + "\n", `line 1: field "exit_code": missing`},
		{"truncated", `{"type":"validation","exit_code":0}` + "\n" + `{"type":"st`, "line 2: truncated line"},
		{"unknown type", `{"type":"bogus"}` + "\n", `line 1: field "type": unknown record type "bogus"`},
		{"no type", `{"exit_code":0}` + "\n", `line 1: field "type": missing`},
		{"array", "[1,2]\n", "line 1: not a JSON object (got JSON array)"},
		{"two validations", `{"type":"validation","exit_code":0}` + "\n" + `{"type":"validation","exit_code":1}` + "\n", "line 2: a second validation record"},
		{"two reviews", `{"type":"step"}` + "\n" + `{"type":"step","review_verdict":"approve"}` + "\n" + `{"type":"step","review_verdict":"changes"}` + "\n", "line 3: a second review"},
		{"two steps and a review", `{"type":"step","review_verdict":"approve"}` + "\n" + `{"type":"step"}` + "\n" + `{"type":"step"}` + "\n", "line 3: a second step record"},
		{"review without its step", `{"type":"step","review_verdict":"approve"}` + "\n" + `{"type":"validation","exit_code":0}` + "\n", "line 1: a review (a step record with a review_verdict) without the step it reviews"},
		{"nested wrong type", `{"type":"step","tool_calls":[{"is_error":"no"}]}` + "\n", `line 1: field "tool_calls.is_error": wrong type`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeInput([]byte(c.in))
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want an InputError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %q, want it to contain %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}

func TestDecodeInputStepAndValidation(t *testing.T) {
	in, err := DecodeInput([]byte(`{"type":"step","command":"claude","llm_input_tokens":7}` + "\n" + `{"type":"validation","exit_code":0,"extra_field":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.Step == nil || in.Validation == nil || *in.Step.LLMInputTokens != 7 || *in.Validation.ExitCode != 0 || len(in.Lines) != 2 {
		t.Fatalf("decoded %+v", in)
	}
}

func TestTailChars(t *testing.T) {
	s := "aé日😀b"
	for n := 0; n <= 6; n++ {
		got, cut := TailChars(s, n)
		want := min(n, 5)
		if utf8.RuneCountInString(got) != want || !strings.HasSuffix(s, got) || !utf8.ValidString(got) {
			t.Fatalf("TailChars(%d) = %q", n, got)
		}
		if cut != (n < 5) {
			t.Fatalf("TailChars(%d) cut = %v", n, cut)
		}
	}
	if HeadChars(s, 3) != "aé日" || HeadChars(s, 10) != s {
		t.Fatal("HeadChars")
	}
}

func TestTailBytesAndText(t *testing.T) {
	b := []byte("ab日本")
	for max := 0; max <= len(b); max++ {
		tail, _ := TailBytes(b, max)
		if !utf8.Valid(tail) || len(tail) > max {
			t.Fatalf("TailBytes(%d) = %q", max, tail)
		}
	}
	if got := Text([]byte("ok\xff\x00")); !utf8.ValidString(got) || !strings.HasPrefix(got, "ok\uFFFD") {
		t.Fatalf("Text = %q", got)
	}
}

func FuzzDecodeInput(f *testing.F) {
	f.Add([]byte(`{"type":"validation","exit_code":0,"stdout":"ok"}` + "\n"))
	f.Add([]byte(`{"type":"step","tool_calls":[{"tool_name":"Bash"}]}` + "\n" + `{"type":"validation","exit_code":1}`))
	f.Add([]byte("not json\n"))
	f.Add([]byte(`{"type":"validation","exit_code":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := DecodeInput(data)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("bad error: %v", err)
			}
			return
		}
		if in.Validation == nil && in.Step == nil {
			t.Fatal("no record and no error")
		}
		if in.Validation != nil && in.Validation.ExitCode == nil {
			t.Fatal("validation without exit_code accepted")
		}
	})
}

// A reviewer's step between the step and the validation is the review,
// in whatever order the lines come; alone, it is a step like another.
func TestDecodeInputReview(t *testing.T) {
	in, err := DecodeInput([]byte(`{"type":"step","review_verdict":"changes","review_notes":"x"}` + "\n" + `{"type":"step","command":"agent"}` + "\n" + `{"type":"validation","exit_code":0}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if in.Step == nil || in.Step.Command != "agent" || in.Review == nil || *in.Review.ReviewVerdict != "changes" || in.ReviewLine != 1 || len(in.Lines) != 3 || string(in.ReviewRaw) != `{"type":"step","review_verdict":"changes","review_notes":"x"}` {
		t.Fatalf("decoded %+v", in)
	}
	in, err = DecodeInput([]byte(`{"type":"step","review_verdict":"approve"}` + "\n"))
	if err != nil || in.Step == nil || in.Review != nil || in.StepLine != 1 {
		t.Fatalf("a lone review: %+v, %v", in, err)
	}
}
