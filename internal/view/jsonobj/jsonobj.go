// Package jsonobj reads the top-level fields of a JSON object without
// decoding the values nobody asked for: a filter on .exit_code skips a
// record's 25 KB of stdout at memchr speed instead of unescaping it.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// SyntaxError is a malformed object; Offset is the byte where it was noticed.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s at byte %d", e.Msg, e.Offset) }

// Scan calls fn with each top-level key of the object in data and the raw
// bytes of its value, in order. Values are delimited, not validated: a value
// is checked only when it is decoded (Value).
func Scan(data []byte, fn func(key string, raw []byte) error) error {
	return Fields(data, func(key, raw []byte) error {
		k, err := keyOf(key)
		if err != nil {
			return &SyntaxError{0, "bad key"}
		}
		return fn(k, raw)
	})
}

// Fields is Scan with each key as its raw string literal, quotes
// included: a caller comparing keys allocates nothing (a key with escapes
// is compared after decoding it, or not at all).
func Fields(data []byte, fn func(key, raw []byte) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return &SyntaxError{i, "not a JSON object"}
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return trailing(data, i+1)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return &SyntaxError{i, "want a key"}
		}
		end, err := skipString(data, i)
		if err != nil {
			return err
		}
		key := data[i:end]
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return &SyntaxError{i, "want ':'"}
		}
		i = skipSpace(data, i+1)
		vend, err := skipValue(data, i)
		if err != nil {
			return err
		}
		if err := fn(key, data[i:vend]); err != nil {
			return err
		}
		i = skipSpace(data, vend)
		if i >= len(data) {
			return &SyntaxError{i, "unterminated object"}
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return trailing(data, i+1)
		default:
			return &SyntaxError{i, "want ',' or '}'"}
		}
	}
}

// Elements calls fn with the raw bytes of each element of the array in
// data, in order; like Fields, it delimits without validating.
func Elements(data []byte, fn func(raw []byte) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return &SyntaxError{i, "not a JSON array"}
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return trailing(data, i+1)
	}
	for {
		end, err := skipValue(data, i)
		if err != nil {
			return err
		}
		if err := fn(data[i:end]); err != nil {
			return err
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return &SyntaxError{i, "unterminated array"}
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return trailing(data, i+1)
		default:
			return &SyntaxError{i, "want ',' or ']'"}
		}
	}
}

// PlainString reports a string literal with no escapes, control bytes or
// non-ASCII bytes: its content is its bytes between the quotes.
func PlainString(raw []byte) bool { return plainString(raw) }

// Project decodes the fields of the object named in keys into a map; fields
// the object does not have are left out, as a full decode would.
func Project(data []byte, keys map[string]bool) (map[string]any, error) {
	m := make(map[string]any, len(keys))
	err := Scan(data, func(key string, raw []byte) error {
		if !keys[key] {
			return nil
		}
		v, err := Value(raw)
		if err != nil {
			return fmt.Errorf("field %q: %w", key, err)
		}
		m[key] = v
		return nil
	})
	return m, err
}

// Full decodes the whole value as gojq wants it (numbers as json.Number).
func Full(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the object")
	}
	return v, nil
}

// Value decodes one raw value, with fast paths for the scalars records are
// mostly made of.
func Value(raw []byte) (any, error) {
	if len(raw) == 0 {
		return nil, errors.New("empty value")
	}
	switch c := raw[0]; {
	case c == '"':
		if plainString(raw) {
			return string(raw[1 : len(raw)-1]), nil
		}
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case c == '-' || c >= '0' && c <= '9':
		if !json.Valid(raw) {
			return nil, fmt.Errorf("bad number %q", raw)
		}
		return json.Number(raw), nil
	case bytes.Equal(raw, []byte("true")):
		return true, nil
	case bytes.Equal(raw, []byte("false")):
		return false, nil
	case bytes.Equal(raw, []byte("null")):
		return nil, nil
	}
	return Full(raw)
}

// plainString reports a string literal with no escapes, control bytes or
// non-ASCII bytes, whose content is its bytes.
func plainString(raw []byte) bool {
	if len(raw) < 2 || raw[len(raw)-1] != '"' {
		return false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c < 0x20 || c == '\\' || c == '"' || c >= 0x80 {
			return false
		}
	}
	return true
}

func keyOf(raw []byte) (string, error) {
	if plainString(raw) {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

func trailing(data []byte, i int) error {
	if i = skipSpace(data, i); i != len(data) {
		return &SyntaxError{i, "trailing data after the object"}
	}
	return nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset just past the string starting at data[i]
// (a '"'), finding the closing quote with IndexByte.
func skipString(data []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, &SyntaxError{i, "unterminated string"}
		}
		j += k
		bs := 0 // an odd run of backslashes escapes the quote
		for p := j - 1; p > i && data[p] == '\\'; p-- {
			bs++
		}
		if bs%2 == 0 {
			return j + 1, nil
		}
		j++
	}
}

// skipValue returns the offset just past the value starting at data[i].
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, &SyntaxError{i, "want a value"}
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end, err := skipString(data, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, &SyntaxError{i, "unterminated value"}
	}
	j := i
	for j < len(data) && !delim(data[j]) {
		j++
	}
	if j == i {
		return 0, &SyntaxError{i, "want a value"}
	}
	return j, nil
}

func delim(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', '}', ']', ':':
		return true
	}
	return false
}
