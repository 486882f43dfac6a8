package record

import (
	"bytes"
	"encoding/json"

	"github.com/loopkit/loopkit/internal/quote"
)

// Marshal encodes v as one line of JSON without HTML escaping (so "<" and
// "&" stay readable for jq and people) and without a trailing newline; C1
// controls and bidirectional overrides are escaped (quote.JSON), so that
// cat or tail -f of a log never drives the terminal.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return quote.JSON(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})), nil
}

// MarshalIndent is Marshal with two-space indentation, for whole files.
func MarshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return quote.JSON(buf.Bytes()), nil
}
