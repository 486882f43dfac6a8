package agentmatrix

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loopkit/loopkit/internal/testsupport/modelapi"
)

// cli is how one agent CLI is pointed at the scripted API and run under
// `scripts/loop run`: its own config in the case's temporary HOME, the
// command line, the tools it offers the model, and the jq filter (in
// testdata/agents) that reads its own totals from its stream.
type cli struct {
	name   string
	ext    string // the capture's extension
	jq     string
	model  string
	config func(h *harness) []string // writes config files, returns env
	args   func(h *harness) []string // the agent command after --
	// write and shell: the tool calls that create and append to notes.txt
	write, shell func(h *harness) modelapi.ToolCall
	// maxTurns limits the CLI to one model turn: extra args, or nil when
	// the CLI has no such limit
	maxTurns func(h *harness) []string
	// maxBudget limits the CLI's spending to less than one model turn
	// costs: extra args, or nil when the CLI has no such limit
	maxBudget func(h *harness) []string
	// denied is the command line without the flag that lets the tools
	// run, nil when loopkit reads no refusal from the CLI; noDenial then
	// says why
	denied   func(h *harness) []string
	noDenial string
	// noReset says why the CLI's output carries no rate-limit reset time
	// ("" when it does): loopkit then waits its own backoff.
	noReset string
}

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func writeFile(path, data string) {
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		panic(err)
	}
}

var clis = map[string]cli{
	"claude": {
		name: "claude", ext: "ndjson", jq: "claude-stream-errors.jq", model: "claude-sonnet-4-5",
		config: func(h *harness) []string {
			// its retries shortened (10 by default), its request timeout
			// too, and no calls anywhere but the scripted API
			return []string{"ANTHROPIC_BASE_URL=" + h.url, "ANTHROPIC_API_KEY=sk-ant-scripted", "IS_SANDBOX=1",
				"CLAUDE_CODE_MAX_RETRIES=2", "API_TIMEOUT_MS=15000", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
				"DISABLE_AUTOUPDATER=1"}
		},
		args: func(h *harness) []string {
			return []string{"claude", "-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions", "--model", "claude-sonnet-4-5"}
		},
		write: func(h *harness) modelapi.ToolCall {
			return modelapi.ToolCall{Name: "Write", Args: raw(map[string]string{"file_path": filepath.Join(h.ws, "notes.txt"), "content": "hello\n"})}
		},
		shell: func(h *harness) modelapi.ToolCall {
			return modelapi.ToolCall{Name: "Bash", Args: raw(map[string]string{"command": "echo world >> notes.txt", "description": "append"})}
		},
		maxTurns:  func(h *harness) []string { return []string{"--max-turns", "1"} },
		maxBudget: func(h *harness) []string { return []string{"--max-budget-usd", "0.0001"} },
		denied: func(h *harness) []string {
			return []string{"claude", "-p", "--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5"}
		},
	},
	"codex": {
		noDenial: "codex exec 0.169 without --dangerously-bypass-approvals-and-sandbox (or --sandbox workspace-write) refuses nothing: " +
			"its approval policy is never and its read-only sandbox lets the write fail; its stream says status failed, exit_code 1 " +
			"and \"Read-only file system\" in the output, as for any command that failed, and for some commands no item at all",
		noReset: "Codex 0.169 names only the status in its retry line (\"Reconnecting... 1/1 (exceeded retry limit, last status: 429 Too Many Requests, request id: …)\"): neither the API's retry-after nor its x-ratelimit-reset-* headers reach its output",
		name:    "codex", ext: "jsonl", jq: "codex-errors.jq", model: "gpt-scripted",
		config: func(h *harness) []string {
			home := filepath.Join(h.home, ".codex")
			writeFile(filepath.Join(home, "config.toml"), fmt.Sprintf(`model = "gpt-scripted"
model_provider = "scripted"
[model_providers.scripted]
name = "scripted"
base_url = "%s/v1"
env_key = "SCRIPTED_API_KEY"
wire_api = "responses"
request_max_retries = 1
stream_max_retries = 1
stream_idle_timeout_ms = 15000
`, h.url))
			return []string{"CODEX_HOME=" + home, "SCRIPTED_API_KEY=sk-scripted"}
		},
		args: func(h *harness) []string {
			return []string{"codex", "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "-"}
		},
		write: func(h *harness) modelapi.ToolCall {
			return modelapi.ToolCall{Name: "exec_command", Args: raw(map[string]string{"cmd": "printf 'hello\\n' > notes.txt"})}
		},
		shell: func(h *harness) modelapi.ToolCall {
			return modelapi.ToolCall{Name: "exec_command", Args: raw(map[string]string{"cmd": "echo world >> notes.txt"})}
		},
	},
	"gemini": {
		name: "gemini", ext: "jsonl", jq: "gemini-stream-errors.jq", model: "gemini-2.5-flash",
		config: func(h *harness) []string {
			// general.maxAttempts: its retries (10 by default, 10 at most)
			writeFile(filepath.Join(h.home, ".gemini", "settings.json"), `{"security":{"auth":{"selectedType":"gemini-api-key"}},
"general":{"maxAttempts":2,"disableAutoUpdate":true},"privacy":{"usageStatisticsEnabled":false}}`)
			return []string{"GOOGLE_GEMINI_BASE_URL=" + h.url, "GEMINI_API_KEY=scripted-key", "GEMINI_CLI_TRUST_WORKSPACE=true"}
		},
		args: func(h *harness) []string {
			return []string{"gemini", "-m", "gemini-2.5-flash", "-p", "{prompt}", "--output-format", "stream-json", "--yolo"}
		},
		write: func(h *harness) modelapi.ToolCall {
			return modelapi.ToolCall{Name: "write_file", Args: raw(map[string]string{"file_path": filepath.Join(h.ws, "notes.txt"), "content": "hello\n"})}
		},
		shell: func(h *harness) modelapi.ToolCall {
			return modelapi.ToolCall{Name: "run_shell_command", Args: raw(map[string]string{"command": "echo world >> notes.txt"})}
		},
		denied: func(h *harness) []string {
			return []string{"gemini", "-m", "gemini-2.5-flash", "-p", "{prompt}", "--output-format", "stream-json"}
		},
		maxTurns: func(h *harness) []string {
			writeFile(filepath.Join(h.home, ".gemini", "settings.json"), `{"security":{"auth":{"selectedType":"gemini-api-key"}},
"general":{"maxAttempts":2,"disableAutoUpdate":true},"privacy":{"usageStatisticsEnabled":false},"model":{"maxSessionTurns":1}}`)
			return nil
		},
	},
	"opencode": {
		noDenial: "opencode 1.18.33 refuses nothing by default: its permissions allow edit and bash (\"evaluated permission=edit … action=allow\" in its log); with \"ask\" in its config the refused call's state is only status error with the text \"The user rejected permission to use this specific tool call.\"",
		noReset:  "opencode 1.18.33 logs only the API's message (\"stream error … AI_APICallError: Rate limit reached: …\"), not the retry-after header nor its own retry delay",
		name:     "opencode", ext: "jsonl", jq: "opencode-errors.jq", model: "scripted-model",
		config: func(h *harness) []string {
			h.opencodeConfig(nil)
			return []string{"OPENCODE_CONFIG=" + filepath.Join(h.home, "opencode.json"), "OPENCODE_DISABLE_MODELS_FETCH=1",
				"OPENCODE_DISABLE_AUTOUPDATE=1", "SCRIPTED_API_KEY=sk-scripted"}
		},
		args: func(h *harness) []string {
			return []string{"opencode", "run", "--print-logs", "--format", "json", "{prompt}"}
		},
		write: func(h *harness) modelapi.ToolCall {
			return modelapi.ToolCall{Name: "write", Args: raw(map[string]string{"filePath": filepath.Join(h.ws, "notes.txt"), "content": "hello\n"})}
		},
		shell: func(h *harness) modelapi.ToolCall {
			return modelapi.ToolCall{Name: "bash", Args: raw(map[string]string{"command": "echo world >> notes.txt", "description": "append"})}
		},
		maxTurns: func(h *harness) []string {
			h.opencodeConfig(map[string]any{"build": map[string]any{"steps": 1}})
			return nil
		},
	},
}

// opencodeConfig writes opencode.json: a custom OpenAI-compatible provider
// at the scripted API, with prices so opencode reports a cost.
func (h *harness) opencodeConfig(agent map[string]any) {
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"scripted": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Scripted",
			"options": map[string]any{"baseURL": h.url + "/v1", "apiKey": "{env:SCRIPTED_API_KEY}"},
			"models": map[string]any{"scripted-model": map[string]any{"name": "Scripted",
				"cost": map[string]any{"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75}}},
		}},
		"model": "scripted/scripted-model", "small_model": "scripted/scripted-model",
		"autoupdate": false, "share": "disabled",
	}
	if agent != nil {
		cfg["agent"] = agent
	}
	data, _ := json.MarshalIndent(cfg, "", "  ")
	writeFile(filepath.Join(h.home, "opencode.json"), string(data))
}
