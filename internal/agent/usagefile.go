package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/loopkit/loopkit/internal/safefile"
)

// UsageFileEnv names the file any agent (or a wrapper script) may write
// its usage to, whatever it prints on stdout.
const UsageFileEnv = "LOOP_USAGE_FILE"

// usageFile is what an agent writes to $LOOP_USAGE_FILE; absent figures
// stay what the parser found.
type usageFile struct {
	InputTokens         *count `json:"input_tokens"`
	OutputTokens        *count `json:"output_tokens"`
	CacheReadTokens     *count `json:"cache_read_tokens"`
	CacheCreationTokens *count `json:"cache_creation_tokens"`
	CostUSD             *usd   `json:"cost_usd"`
}

// usageFileMax caps what is read of the usage file: a few numbers.
const usageFileMax = 64 << 10

// ApplyUsageFile puts the figures the agent wrote to path over those
// parsed from its output, field by field. A missing or empty file is no
// usage; a bad one (not JSON, a FIFO, a link, past 64 KiB) is an error and
// changes nothing. The agent made this file: it is read as safefile reads.
func ApplyUsageFile(path string, u *Usage) error {
	data, err := safefile.ReadFile(path, usageFileMax)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil
	}
	var f usageFile
	// as jq does, past a byte-order mark (PowerShell's Out-File writes one)
	if err := json.Unmarshal(bytes.TrimPrefix(data, []byte(utf8BOM)), &f); err != nil {
		return fmt.Errorf("not a JSON object of token counts: %w", err)
	}
	for _, p := range []struct {
		dst **int64
		v   *count
	}{{&u.InputTokens, f.InputTokens}, {&u.OutputTokens, f.OutputTokens},
		{&u.CacheReadTokens, f.CacheReadTokens}, {&u.CacheCreationTokens, f.CacheCreationTokens}} {
		if p.v != nil {
			*p.dst = p.v.int()
		}
	}
	if f.CostUSD != nil {
		u.CostUSD = f.CostUSD.float()
	}
	return nil
}
