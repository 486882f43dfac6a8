package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopkit/loopkit/internal/safefile"
)

// Price is one model's dollars per million tokens of each kind.
type Price struct {
	Input         float64 `json:"input"`
	Output        float64 `json:"output"`
	CacheRead     float64 `json:"cache_read"`
	CacheCreation float64 `json:"cache_creation"`
}

// Prices are a price table by model name (loop-step --prices, config
// prices).
type Prices map[string]Price

// LoadPrices reads --prices: {"model": {"input": $/Mtok, …}, …}. The
// path is the config's, and the file may be the agent's to swap (a FIFO,
// a link, /dev/zero): read as every such file is.
func LoadPrices(path string) (Prices, error) {
	data, err := safefile.ReadFile(path, safefile.DocMax)
	if err != nil {
		return nil, err
	}
	var p Prices
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: want {\"MODEL\": {\"input\": USD_PER_MTOK, \"output\": …, \"cache_read\": …, \"cache_creation\": …}}: %v", path, err)
	}
	return p, nil
}

// Estimate prices usage for model from the table: the entry named exactly,
// else the longest entry the model name starts with. Every token figure
// must be known (an unknown one would make the estimate a guess).
func (prices Prices) Estimate(model string, u Usage) (float64, bool) {
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
