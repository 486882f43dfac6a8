package agent

import (
	"bufio"
	"strconv"
	"strings"
)

// opencodeEvent is one line of `opencode run --format json`.
type opencodeEvent struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionID"`
	Part      *struct {
		Type   string `json:"type"`
		Text   string `json:"text"`
		CallID string `json:"callID"`
		Tool   string `json:"tool"`
		Cost   *usd   `json:"cost"`
		Tokens *struct {
			Input     *count `json:"input"`
			Output    *count `json:"output"`
			Reasoning *count `json:"reasoning"`
			Cache     *struct {
				Read  *count `json:"read"`
				Write *count `json:"write"`
			} `json:"cache"`
		} `json:"tokens"`
		State *struct {
			Status string        `json:"status"`
			Input  argsSummary   `json:"input"`
			Output resultSummary `json:"output"`
			Error  resultSummary `json:"error"`
		} `json:"state"`
	} `json:"part"`
	Error *struct {
		Name string `json:"name"`
		Data *struct {
			Message    string `json:"message"`
			StatusCode *int   `json:"statusCode"`
		} `json:"data"`
	} `json:"error"`
}

type opencode struct {
	res      Result
	cs       calls
	w        *penv
	stepText tailText
}

func parseOpencode(br *bufio.Reader, w *penv) (*Result, error) {
	o := &opencode{w: w}
	o.cs.max = w.maxCalls
	err := eachJSONLine(br, w, func(b []byte) error {
		var ev opencodeEvent
		if err := decodeLoose(b, &ev); err != nil {
			return err
		}
		o.event(&ev)
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	if s := strings.TrimSpace(o.stepText.String()); s != "" {
		o.res.FinalMessage = s // a step cut off before its step_finish
	}
	o.res.ToolCalls = o.cs.all()
	o.res.ToolCallsDropped = o.cs.dropped
	return &o.res, nil
}

func (o *opencode) event(ev *opencodeEvent) {
	res := &o.res
	if ev.SessionID != "" && res.SessionID == "" {
		res.SessionID = strings.Clone(ev.SessionID)
	}
	p := ev.Part
	switch ev.Type {
	case "step_start":
		o.stepText.reset()
	case "text":
		if p != nil && p.Text != "" {
			if len(o.stepText.b) > 0 {
				o.stepText.add("\n")
			}
			o.stepText.add(p.Text)
		}
	case "tool_use":
		if p == nil {
			return
		}
		args := ""
		if p.State != nil {
			args = string(p.State.Input)
		}
		o.cs.use(p.CallID, p.Tool, args, false)
		if st := p.State; st != nil && (st.Status == "completed" || st.Status == "error") {
			out := string(st.Output)
			if st.Status == "error" && st.Error != "" {
				out = string(st.Error)
			}
			o.cs.result(p.CallID, out, st.Status == "error", false)
		}
	case "step_finish":
		if p == nil {
			return
		}
		// Each step reports its own tokens and cost: they add up. Output
		// and reasoning as opencode prints them (docs/agents.md, "Decisions").
		if t := p.Tokens; t != nil {
			u := Usage{InputTokens: t.Input.int(), OutputTokens: t.Output.int(), ReasoningTokens: t.Reasoning.int()}
			if t.Cache != nil {
				u.CacheReadTokens, u.CacheCreationTokens = t.Cache.Read.int(), t.Cache.Write.int()
			}
			res.Usage.Add(u)
		}
		if p.Cost != nil {
			res.Usage.Add(Usage{CostUSD: p.Cost.float()})
		}
		if s := strings.TrimSpace(o.stepText.String()); s != "" {
			res.FinalMessage = s
		}
		o.stepText.reset()
	case "error":
		msg := "opencode error"
		if e := ev.Error; e != nil {
			if e.Name != "" {
				msg += ": " + e.Name
			}
			if e.Data != nil && e.Data.Message != "" {
				msg += ": " + e.Data.Message
			}
			kind := ""
			if e.Data != nil && e.Data.StatusCode != nil {
				kind = kindOfCode(strconv.Itoa(*e.Data.StatusCode))
			} else if e.Name == "ProviderAuthError" {
				kind = "authentication"
			}
			res.errorText(msg, kind, o.w.now)
			return
		}
		res.errorText(msg, "", o.w.now)
	}
}
