package agent

import "testing"

func TestActivity(t *testing.T) {
	for _, tc := range []struct {
		line             string
		progress, result bool
	}{
		{`{"type":"error","message":"Reconnecting... waiting for network (stream disconnected before completion)"}`, false, false},
		// numbered retries are the CLI at work: it gives up by itself
		{`{"type":"error","message":"Reconnecting... 2/5 (unexpected status 503)"}`, true, false},
		{`{"type":"system","subtype":"api_retry","attempt":1,"retry_delay_ms":500,"error_status":529}`, true, false},
		{`{"type":"system","subtype":"api_retry","retry_delay_ms":500}`, false, false},
		{`Retrying in 4s…`, false, false},
		{"", false, false},
		{`{"type":"error","message":"You've hit your usage limit."}`, true, false},
		{`{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"x"}}`, true, false},
		{`{"type":"result","subtype":"success","is_error":false,"result":"done"}`, true, true},
		{`{"type":"system","subtype":"init","session_id":"s"}`, true, false},
		{`compiling...`, true, false},
	} {
		p, r := Activity([]byte(tc.line))
		if p != tc.progress || r != tc.result {
			t.Errorf("%q: progress %v result %v, want %v %v", tc.line, p, r, tc.progress, tc.result)
		}
	}
}
