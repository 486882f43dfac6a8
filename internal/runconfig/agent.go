package runconfig

import (
	"encoding/json"
	"fmt"
)

// AgentKey is the setting holding the agent's argv.
const AgentKey = "agent"

// EncodeAgent and DecodeAgent store the agent's argv in one text setting
// (run.json before settings were typed).
func EncodeAgent(argv []string) string {
	b, _ := json.Marshal(argv)
	return string(b)
}

// DecodeAgent reads what EncodeAgent stored.
func DecodeAgent(v string) ([]string, error) {
	var argv []string
	if err := json.Unmarshal([]byte(v), &argv); err != nil {
		return nil, fmt.Errorf("agent setting is not a JSON list of strings: %w", err)
	}
	return argv, nil
}
