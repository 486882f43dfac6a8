package recorder

import (
	"bytes"
	"encoding/json"
	"slices"

	escape "github.com/loopkit/loopkit/internal/quote" // recorder_test.go has a quote
	"github.com/loopkit/loopkit/internal/record"
)

// encodeManifest is record.MarshalIndent(m), byte for byte, with the
// entries of m.Verifications equal to those of prev (the manifest last
// written, enc its entries as encoded) taken as they were: the list grows
// by an entry an iteration, and encoding it whole each time made a run of
// n iterations spend O(n²) on its manifest (4 ms an iteration at 400).
// It returns each entry's encoding, for the next call.
func encodeManifest(m manifest, prev []verification, enc [][]byte) ([]byte, [][]byte, error) {
	if len(m.Verifications) == 0 {
		data, err := record.MarshalIndent(m)
		return data, nil, err
	}
	head := m
	head.Verifications = nil
	data, err := record.MarshalIndent(head)
	if err != nil {
		return nil, nil, err
	}
	const tail = `"verifications": null` + "\n}\n"
	if !bytes.HasSuffix(data, []byte(tail)) { // not the shape this splices into
		data, err := record.MarshalIndent(m)
		return data, nil, err
	}
	entries := make([][]byte, len(m.Verifications))
	for i, v := range m.Verifications {
		if i < len(prev) && i < len(enc) && sameVerification(&v, &prev[i]) {
			entries[i] = enc[i]
			continue
		}
		if entries[i], err = encodeEntry(v); err != nil {
			return nil, nil, err
		}
	}
	size := len(data) + 16
	for _, e := range entries {
		size += len(e) + 2
	}
	out := bytes.NewBuffer(make([]byte, 0, size))
	out.Write(data[:len(data)-len(tail)])
	out.WriteString(`"verifications": [` + "\n")
	for i, e := range entries {
		if i > 0 {
			out.WriteString(",\n")
		}
		out.Write(e)
	}
	out.WriteString("\n  ]\n}\n")
	return out.Bytes(), entries, nil
}

// encodeEntry is v as MarshalIndent writes it as an element of the
// manifest's verifications: indented by four spaces, no newline after.
func encodeEntry(v verification) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("    ")
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return escape.JSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// sameVerification compares every field the manifest writes.
func sameVerification(a, b *verification) bool {
	if a.Iteration != b.Iteration || a.TimestampStart != b.TimestampStart || a.TimestampEnd != b.TimestampEnd ||
		a.Status != b.Status || !samePtr(a.CommitSHA, b.CommitSHA) {
		return false
	}
	return slices.EqualFunc(a.CommandsExecuted, b.CommandsExecuted, func(x, y manifestStep) bool {
		return x.Name == y.Name && x.Command == y.Command && x.DurationMs == y.DurationMs && samePtr(x.ExitCode, y.ExitCode)
	}) && (a.CommandsExecuted == nil) == (b.CommandsExecuted == nil)
}

func samePtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
