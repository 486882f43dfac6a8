package loopstep

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/safefile"
)

// usageFileEnv names the file any agent may write its usage to.
const usageFileEnv = agent.UsageFileEnv

// applyUsageFile puts the figures the agent wrote to path over those
// parsed from its output; a bad file is warned about and ignored. Then
// every figure is ranged: one out of range is dropped with a warning and
// named in the record's usage_ignored.
func (s *stepRun) applyUsageFile(path string, u *agent.Usage) {
	for _, bad := range u.Ignored { // dropped by the parser, call by call
		s.env.Log.Warn("usage figure ignored", "why", bad)
	}
	if err := agent.ApplyUsageFile(path, u); err != nil {
		s.env.Log.Warn("usage file ignored", "file", path, "err", err)
		u.Ignored = append(u.Ignored, "usage file: "+err.Error())
	}
	for _, bad := range u.Range() {
		s.env.Log.Warn("usage figure ignored", "why", bad)
	}
}

// price is one model's dollars per million tokens of each kind.
type price struct {
	Input         float64 `json:"input"`
	Output        float64 `json:"output"`
	CacheRead     float64 `json:"cache_read"`
	CacheCreation float64 `json:"cache_creation"`
}

// loadPrices reads --prices: {"model": {"input": $/Mtok, …}, …}. The
// path is the config's, and the file may be the agent's to swap (a FIFO,
// a link, /dev/zero): read as every such file is.
func loadPrices(path string) (map[string]price, error) {
	data, err := safefile.ReadFile(path, safefile.DocMax)
	if err != nil {
		return nil, err
	}
	var p map[string]price
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: want {\"MODEL\": {\"input\": USD_PER_MTOK, \"output\": …, \"cache_read\": …, \"cache_creation\": …}}: %v", path, err)
	}
	return p, nil
}

// estimate prices usage for model from the table: the entry named exactly,
// else the longest entry the model name starts with. Every token figure
// must be known (an unknown one would make the estimate a guess).
func estimate(prices map[string]price, model string, u agent.Usage) (float64, bool) {
	p, ok := prices[model]
	if !ok {
		best := ""
		for name := range prices {
			if strings.HasPrefix(model, name) && len(name) > len(best) {
				best = name
			}
		}
		if best == "" {
			return 0, false
		}
		p = prices[best]
	}
	if model == "" || u.InputTokens == nil || u.OutputTokens == nil {
		return 0, false
	}
	n := func(v *int64) float64 {
		if v == nil {
			return 0
		}
		return float64(*v)
	}
	cost := (n(u.InputTokens)*p.Input + n(u.OutputTokens)*p.Output + n(u.CacheReadTokens)*p.CacheRead + n(u.CacheCreationTokens)*p.CacheCreation) / 1e6
	return cost, true
}
