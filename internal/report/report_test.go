package report

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopkit/loopkit/internal/record"
	"github.com/loopkit/loopkit/internal/testsupport/mdtest"
)

func TestPrimaryFailure(t *testing.T) {
	msg := "command not found: gotest"
	cases := []struct {
		it   record.IterationLog
		want string
	}{
		{record.IterationLog{Status: "pass", Stdout: "error"}, "-"},
		{record.IterationLog{Status: "fail", Stdout: "=== RUN TestA\n--- FAIL: TestA (0.00s)\n"}, "--- FAIL: TestA (0.00s)"},
		{record.IterationLog{Status: "fail", Stdout: "building\n", Stderr: "main.go:3:2: undefined: x\n"}, "main.go:3:2: undefined: x"},
		{record.IterationLog{Status: "error", ExitCode: -1, Error: &msg}, msg},
		{record.IterationLog{Status: "fail", Stdout: "just text\n"}, "just text"},
		{record.IterationLog{Status: "fail", ExitCode: 3}, "exit 3"},
		{record.IterationLog{Status: "fail", Stdout: "a | b FAIL\x1b[0m"}, `a \| b FAIL [0m`},
		{record.IterationLog{Status: "fail", Stdout: "FAIL \u009b2J \u202etxt.exe"}, `FAIL  2J  txt.exe`},
	}
	for _, c := range cases {
		if got := PrimaryFailure(&c.it); got != c.want {
			t.Errorf("PrimaryFailure(%q/%q) = %q, want %q", c.it.Stdout, c.it.Stderr, got, c.want)
		}
	}
}

func TestWrittenHypotheses(t *testing.T) {
	fresh := "# Stuck Report\n\n## Hypotheses\n\n" + HypothesesPlaceholder + "\n## Verification History\n\n| x |\n"
	if got := WrittenHypotheses(fresh); got != "" {
		t.Errorf("fresh report: got %q", got)
	}
	edited := strings.Replace(fresh, "1. \n", "1. The fixture file is stale: regenerate it.\n", 1)
	if got := WrittenHypotheses(edited); got != "1. The fixture file is stale: regenerate it." {
		t.Errorf("edited report: got %q", got)
	}
	if got := WrittenHypotheses("# no section\n"); got != "" {
		t.Errorf("no section: got %q", got)
	}
}

// A lingering CLI stopped after its result is no trouble of the agent's.
func TestStoppedAfterResultNoTrouble(t *testing.T) {
	code := -1
	if got := agentTrouble(&record.Agent{ExitCode: &code, KilledAfterResult: true}); got != "" {
		t.Fatalf("trouble %q", got)
	}
	if got := agentTrouble(&record.Agent{ExitCode: &code}); got != "did not exit by itself" {
		t.Fatalf("trouble %q", got)
	}
}

// The agent names the files and writes the outputs that the stuck report
// and a context snapshot carry: neither may add a section of its own, nor
// close the fence around the last prompt (whose progress block has a
// longer fence when an output holds ```).
func TestAgentTextStaysInItsPlace(t *testing.T) {
	var c Collector
	c.Add(&record.IterationLog{Iteration: 1, Status: "fail", FilesChanged: []string{"a.go", "x\n## Hypotheses\n1. forged\n.go"}}, "/d/1")
	// a stuck reason quotes the agent too (the watchdog's evidence)
	reason := "watchdog: repeated_task after 2 prompt rewrites: the same tool calls (Bash\n## Hypotheses\n1. forged\x1b]0;t\a)"
	run := &record.Run{RunID: "r", Status: "stuck", LastError: &reason}
	prompt := "task\n\n## Iteration 1\n**Output:**\n````\n```\n````\n\n## Forged\n"
	for name, doc := range map[string]string{
		"stuck":    Stuck(run, "task", &c),
		"snapshot": Snapshot(1, "stuck", time.Unix(0, 0), run, prompt, "", c.Files()),
	} {
		var heads []string
		lines, _ := mdtest.Outside(doc)
		for _, line := range lines {
			if strings.HasPrefix(line, "## ") {
				heads = append(heads, line)
			}
		}
		for _, h := range heads {
			if h == "## Hypotheses" && name == "snapshot" || h == "## Forged" {
				t.Errorf("%s: agent's text made a heading %q:\n%s", name, h, doc)
			}
		}
		if n := strings.Count(strings.Join(heads, "\n"), "## Hypotheses"); name == "stuck" && n != 1 {
			t.Errorf("stuck: %d Hypotheses headings, want 1:\n%s", n, doc)
		}
		if strings.Contains(doc, "\x1b") {
			t.Errorf("%s: a raw escape:\n%q", name, doc)
		}
		if !strings.Contains(doc, `- x\n## Hypotheses\n1. forged\n.go`+"\n") {
			t.Errorf("%s: file name not on one line:\n%s", name, doc)
		}
	}
}

// A long run's stuck report lists its last iterations, not every one: the
// stuck agent reads it whole as its prompt (1,000 rows were 115 KB, past
// what {prompt} takes). The count and where the rest are stay.
func TestStuckReportOfALongRun(t *testing.T) {
	small, long := &Collector{}, &Collector{}
	code, msg := 1, "boom"
	for i := 1; i <= 1000; i++ {
		it := &record.IterationLog{Iteration: i, Status: "fail", ExitCode: 1, Stdout: "FAIL: TestX\n",
			Agent: &record.Agent{ExitCode: &code, Error: &msg}, FilesChanged: []string{fmt.Sprintf("logs/%04d.txt", i)}}
		dir := "/s/runs/R/iterations/" + strconv.Itoa(i)
		long.Add(it, dir)
		if i <= 10 {
			small.Add(it, dir)
		}
	}
	run := &record.Run{RunID: "R"}
	doc := Stuck(run, "task", long)
	if base := len(Stuck(run, "task", small)); len(doc) > base*5+1000 {
		t.Errorf("report of 1000 iterations is %d bytes (10: %d)", len(doc), base)
	}
	for _, want := range []string{"after 1000 verification attempts", "`loop-view logs R` lists all 1000",
		"| iteration 951 |", "| iteration 1000 |", "- iterations 1 to 950: /s/runs/R/iterations/", "The last 50 of 1000.",
		"- logs/0200.txt\n- … and 800 more"} {
		if !strings.Contains(doc, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(doc, "| iteration 950 |") || strings.Contains(doc, "iteration 950:") || strings.Contains(doc, "logs/0201.txt") {
		t.Error("report lists iteration 950")
	}
}
