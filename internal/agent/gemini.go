package agent

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/record"
)

// geminiEvent is one line of `gemini -p … --output-format stream-json`, or
// the one object of `--output-format json` (response, stats, error).
type geminiEvent struct {
	Type       string        `json:"type"`
	SessionID  string        `json:"session_id"`
	Model      string        `json:"model"`
	Role       string        `json:"role"`
	Content    string        `json:"content"`
	Delta      bool          `json:"delta"`
	ToolName   string        `json:"tool_name"`
	ToolID     string        `json:"tool_id"`
	Parameters argsSummary   `json:"parameters"`
	Status     string        `json:"status"`
	Output     resultSummary `json:"output"`
	Severity   string        `json:"severity"`
	Message    string        `json:"message"`
	Error      *geminiError  `json:"error"`
	Stats      *geminiStats  `json:"stats"`
	Response   *string       `json:"response"`
}

type geminiError struct {
	Type    string          `json:"type"`
	Message string          `json:"message"`
	Code    json.RawMessage `json:"code"`
}

// geminiTokens are one model's figures: flat in stream-json's result, under
// "tokens" in json's stats.models.
type geminiTokens struct {
	InputTokens  *count `json:"input_tokens"`
	OutputTokens *count `json:"output_tokens"`
	Cached       *count `json:"cached"`
	Input        *count `json:"input"`
	// json output names
	Prompt     *count `json:"prompt"`
	Candidates *count `json:"candidates"`
	Thoughts   *count `json:"thoughts"`
}

type geminiStats struct {
	geminiTokens
	Models map[string]struct {
		geminiTokens
		Tokens *geminiTokens `json:"tokens"`
	} `json:"models"`
	// Tools counts the calls of --output-format json, which prints no
	// call of its own: by name, with their failures.
	Tools *struct {
		TotalCalls int `json:"totalCalls"`
		TotalFail  int `json:"totalFail"`
		ByName     map[string]struct {
			Count int `json:"count"`
			Fail  int `json:"fail"`
		} `json:"byName"`
	} `json:"tools"`
}

type gemini struct {
	res       Result
	cs        calls
	w         *penv
	text      tailText
	afterTool bool
	// limitLine is a rate-limit line of stderr merged into stdout ("Attempt
	// 2 failed with status 429…", RESOURCE_EXHAUSTED), until a result that
	// succeeded after it says the CLI got through.
	limitLine string
	// started: stream-json's init came; ended: a result (or the json
	// object) after it
	started, ended bool
}

func parseGemini(br *bufio.Reader, w *penv) (*Result, error) {
	g := &gemini{w: w}
	g.cs.max = w.maxCalls
	err := eachJSONLine(br, w, func(b []byte) error {
		var ev geminiEvent
		if err := decodeLoose(b, &ev); err != nil {
			g.textLine(b)
			return err
		}
		g.event(&ev)
		return nil
	}, func(br *bufio.Reader, lineNo int) {
		vr := &valueReader{br: br}
		dec := json.NewDecoder(vr)
		for {
			var ev geminiEvent
			vr.elem = 0
			err := dec.Decode(&ev)
			var te *json.UnmarshalTypeError
			if err != nil && !errors.As(err, &te) {
				switch {
				case errors.Is(err, errLongValue):
					w.skip(lineNo, fmt.Sprintf("JSON object longer than %d bytes", MaxLineBytes))
				case err.Error() != "EOF":
					w.skip(lineNo, fmt.Sprintf("bad JSON object: %v", err))
				}
				return
			}
			g.event(&ev)
		}
	})
	if err != nil {
		return nil, err
	}
	if g.limitLine != "" && g.res.RateLimit == nil {
		g.res.errorText("gemini: "+g.limitLine, record.ErrorKindRateLimit, w.now)
	}
	if g.started && !g.ended {
		g.res.Unfinished = "result"
	}
	if g.res.FinalMessage == "" {
		g.res.FinalMessage = strings.TrimSpace(g.text.String())
	}
	g.res.ToolCalls = g.cs.all()
	g.res.ToolCallsDropped = g.cs.dropped
	return &g.res, nil
}

// textLine notes a line of merged stderr that says the API refused for a
// rate limit: the CLI's retry notice or its final error text.
func (g *gemini) textLine(b []byte) {
	ln := strings.TrimSpace(string(b))
	if n := LiveNotice(b, g.w.now); (n != nil && n.Kind == record.ErrorKindRateLimit) || limitNotice().MatchString(ln) {
		g.limitLine = record.HeadChars(ln, evidenceChars)
	}
}

func (g *gemini) event(ev *geminiEvent) {
	res := &g.res
	if ev.SessionID != "" && res.SessionID == "" {
		res.SessionID = strings.Clone(ev.SessionID)
	}
	switch ev.Type {
	case "init":
		g.started = true
		if ev.Model != "" {
			res.Model = strings.Clone(ev.Model)
		}
	case "message":
		if ev.Role != "assistant" {
			return
		}
		if g.afterTool || !ev.Delta {
			g.text.reset()
			g.afterTool = false
		}
		g.text.add(ev.Content)
	case "tool_use":
		g.cs.use(ev.ToolID, ev.ToolName, string(ev.Parameters), false)
		g.afterTool = true
	case "tool_result":
		out := string(ev.Output)
		if ev.Error != nil && ev.Error.Message != "" {
			out = ev.Error.Message
		}
		g.cs.result(ev.ToolID, out, ev.Status == "error", false)
		if ev.Status == "error" && ev.Error != nil {
			g.cs.denyIf(ev.ToolID, func(name string) bool { return geminiDenied(ev.Error.Type, name) })
		}
		g.afterTool = true
	case "error":
		if ev.Severity == "error" && !IsRetryNotice(ev.Message) {
			kind := ""
			if ev.Message == geminiMaxTurns {
				kind = record.ErrorKindMaxTurns
			}
			res.errorText("gemini: "+ev.Message, kind, g.w.now)
		} else if ev.Severity == "warning" && ev.Message != "" {
			// "Loop detected, stopping execution": the CLI ended its turn
			// itself, and its result says success; the reason was lost
			res.Notices = append(res.Notices, "gemini: "+record.HeadChars(ev.Message, evidenceChars))
		}
	case "result", "":
		g.ended = true
		if ev.Error == nil && (ev.Stats != nil || ev.Response != nil) && ev.Status != "error" {
			g.limitLine = "" // the CLI got through after its retries
		}
		if ev.Stats != nil {
			res.Usage.Add(ev.Stats.usage(ev.Response != nil))
			g.statsCalls(ev.Stats)
		}
		if ev.Response != nil {
			res.FinalMessage = strings.TrimSpace(*ev.Response)
		}
		if ev.Error != nil && ev.Error.Message != "" {
			code := strings.Trim(string(ev.Error.Code), `"`)
			kind := kindOfCode(code)
			if n, err := strconv.Atoi(code); err == nil {
				if e, ok := geminiExits[n]; ok {
					kind = e.kind // the json error's code is its exit code
				}
			}
			res.errorText("gemini: "+ev.Error.Message, kind, g.w.now)
		}
	}
}

// statsCalls lists the calls only the stats count (json output, where no
// tool_use event came): one call per count, by name, the failures marked,
// so that "no tool calls" never stands for "not reported". Calls the stats
// count but do not name are "(unknown)".
func (g *gemini) statsCalls(s *geminiStats) {
	t := s.Tools
	if t == nil || len(g.cs.all()) > 0 || g.cs.dropped > 0 {
		return
	}
	names := make([]string, 0, len(t.ByName))
	named := 0
	for name, n := range t.ByName {
		names = append(names, name)
		named += max(n.Count, 0)
	}
	slices.Sort(names)
	n := 0
	add := func(name string, count, fail int) {
		for i := 0; i < count && n < maxStatsCalls; i++ {
			n++
			id := "stats-" + strconv.Itoa(n)
			g.cs.use(id, name, "", false)
			g.cs.result(id, "(counted in gemini's stats)", i < fail, false)
		}
	}
	for _, name := range names {
		add(name, t.ByName[name].Count, t.ByName[name].Fail)
	}
	add(unknownTool, t.TotalCalls-named, 0)
}

// maxStatsCalls bounds the calls made up from stats counts.
const maxStatsCalls = 100000

// usage turns Gemini's figures into the record's: its input counts cached
// tokens, so they come off; Gemini reports no cache writes and no cost.
func (s *geminiStats) usage(jsonOutput bool) Usage {
	if jsonOutput || (s.InputTokens == nil && s.OutputTokens == nil && len(s.Models) > 0) {
		var u Usage
		for _, m := range s.Models {
			t := m.Tokens
			if t == nil {
				t = &m.geminiTokens
			}
			u.Add(t.usage())
		}
		return u
	}
	return s.geminiTokens.usage()
}

func (t *geminiTokens) usage() Usage {
	in := t.Input.int()
	if in == nil {
		in = minus(either(t.InputTokens, t.Prompt), t.Cached.int())
	}
	// output as Gemini prints it, thoughts beside it (docs/agents.md,
	// "Decisions"): never derived from total_tokens
	return Usage{InputTokens: in, OutputTokens: either(t.OutputTokens, t.Candidates), CacheReadTokens: t.Cached.int(), ReasoningTokens: t.Thoughts.int()}
}

// geminiMaxTurns is the error event of its own model.maxSessionTurns
// reached (packages/cli/src/nonInteractiveCli.ts), before it exits 53.
const geminiMaxTurns = "Maximum session turns exceeded"

// Gemini CLI's documented exit codes, named in the step's error.
var geminiExits = map[int]struct{ name, kind string }{
	41:  {"authentication error (FatalAuthenticationError)", "authentication"},
	42:  {"input error: invalid prompt or arguments (FatalInputError)", "invalid_request"},
	44:  {"sandbox error (FatalSandboxError)", "api_error"},
	52:  {"configuration error: invalid settings.json (FatalConfigError)", "invalid_request"},
	53:  {"turn limit reached (FatalTurnLimitedError)", "max_turns"}, // its maxSessionTurns, not the API
	54:  {"tool execution failed (FatalToolExecutionError)", ""},     // a tool's fatal error (disk full), not the API
	130: {"cancelled (FatalCancellationError)", ""},
}

// ExitMeaning names what an agent's exit code means when its CLI documents
// it (Gemini CLI, known by its output format or its program name: a failed
// start prints nothing to detect), with the error kind; "" for codes with
// no documented meaning.
func ExitMeaning(format, binary string, code int) (msg, kind string) {
	if format != FormatGemini && filepath.Base(binary) != "gemini" {
		return "", ""
	}
	if e, ok := geminiExits[code]; ok {
		return fmt.Sprintf("gemini exited %d: %s", code, e.name), e.kind
	}
	return "", ""
}

// geminiGated are the Gemini CLI's own tools that its default policy
// (policies/write.toml) lets run only after a person says yes. Without
// --yolo, --approval-mode or --allowed-tools that answer is no in -p mode:
// the CLI leaves them out of its registry, and a call to one comes back as
// tool_not_registered.
var geminiGated = map[string]bool{
	"write_file": true, "replace": true, "run_shell_command": true, "web_fetch": true, "activate_skill": true,
}

// geminiDenied tells a tool call the CLI refused from one that failed, by
// the error's type: policy_violation is a refusal by a policy rule (or a
// hook); tool_not_registered is one only for a gated tool of its own, since
// a tool the model made up is not registered either.
func geminiDenied(errType, tool string) bool {
	return errType == "policy_violation" || errType == "tool_not_registered" && geminiGated[tool]
}
