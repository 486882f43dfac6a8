package view

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/loopkit/loopkit/internal/runconfig"
	"github.com/loopkit/loopkit/internal/view/jsonobj"
)

// typedSettings is run.json with the settings an older loopkit stored as
// text shown typed, as newer runs store them, so that one jq filter reads
// every run; the rest stays as stored.
func typedSettings(raw []byte, s *runconfig.Settings) []byte {
	var settings []byte
	jsonobj.Fields(raw, func(key, val []byte) error {
		if string(key) == `"settings"` {
			settings = val
		}
		return nil
	})
	if settings == nil || !olderText(settings) {
		return raw
	}
	typed, err := json.Marshal(s)
	if err != nil {
		return raw
	}
	var out bytes.Buffer
	out.WriteByte('{')
	err = jsonobj.Fields(raw, func(key, val []byte) error {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		if string(key) == `"settings"` {
			val = typed
		}
		out.Write(key)
		out.WriteByte(':')
		out.Write(val)
		return nil
	})
	if err != nil {
		return raw
	}
	out.WriteByte('}')
	return out.Bytes()
}

var errFound = errors.New("found")

// olderText reports a settings object holding a value as text that is no
// text (runconfig.Textual).
func olderText(settings []byte) bool {
	return jsonobj.Scan(settings, func(key string, val []byte) error {
		if len(val) > 0 && val[0] == '"' && !runconfig.Textual(key) {
			return errFound
		}
		return nil
	}) == errFound
}
