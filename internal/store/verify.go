package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/loopkit/loopkit/internal/record"
)

// ReadVerifications reads run id's verify.jsonl, the final verification
// commands' results (none when it does not exist).
func (s *Store) ReadVerifications(id string) ([]*record.Verification, error) {
	path := s.RunPath(id, VerifyFile)
	var vs []*record.Verification
	err := ScanFile(path, func(_ int, line []byte) error {
		v := &record.Verification{}
		if err := json.Unmarshal(line, v); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		vs = append(vs, v)
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return vs, err
}
