package runconfig

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"

	"github.com/loopkit/loopkit/internal/safefile"
)

// The driver's running state (the state fields) changes as the run goes,
// so it is not fixed at start; but it is the driver's, not the agent's: a
// driven_ms the agent zeroed in run.json lifted --max-duration, and a
// resumed_after it raised hid the agent's failures from the rules. Each
// write of a kept run's run.json (store.WriteRun) keeps the state beside
// the settings, and Enforce takes it over run.json's.

func statePath(runDir string) (string, error) {
	path, err := keptPath(runDir)
	return strings.TrimSuffix(path, ".json") + ".state.json", err
}

// stateJSON is s's state fields as one JSON object, zero values included.
func stateJSON(s *Settings) []byte {
	m := map[string]any{}
	v := reflect.ValueOf(s).Elem()
	fields := Fields()
	for i := range fields {
		if f := &fields[i]; f.State {
			m[f.Key] = v.Field(f.index).Interface()
		}
	}
	data, _ := json.Marshal(m) // plain numbers, text and booleans
	return data
}

// KeepState keeps s's running state for the run at runDir, when its
// settings are kept (a driver's run); nothing is written when the kept
// state says the same. A state that cannot be kept is removed, so that
// readers take run.json's rather than an older one.
func KeepState(runDir string, s *Settings) error {
	if !IsKept(runDir) {
		return nil
	}
	path, err := statePath(runDir)
	if err != nil {
		return err
	}
	data := stateJSON(s)
	old, _ := safefile.ReadFile(path, 1<<16)
	if own, _, ok := splitPrev(old); ok && bytes.Equal(own, data) {
		return nil
	}
	data = withPrev(data, old)
	if err := replaceSynced(path, data); err != nil {
		if rerr := os.Remove(path); rerr != nil && !os.IsNotExist(rerr) {
			return err
		}
	}
	return nil
}

// enforceState replaces s's state with the state kept for the run at
// runDir, adding the keys run.json held other values for to d; a run
// with none kept keeps run.json's.
func enforceState(runDir string, s *Settings, d *differences) {
	path, err := statePath(runDir)
	if err != nil {
		return
	}
	data, err := safefile.ReadFile(path, 1<<16)
	var kept, prev map[string]json.RawMessage
	if err != nil || json.Unmarshal(data, &kept) != nil {
		return
	}
	if raw, ok := kept[prevKey]; ok {
		json.Unmarshal(raw, &prev)
	}
	v := reflect.ValueOf(s).Elem()
	fields := Fields()
	for i := range fields {
		f := &fields[i]
		raw, ok := kept[f.Key]
		if !f.State || !ok {
			continue
		}
		p := reflect.New(f.kind)
		if json.Unmarshal(raw, p.Interface()) != nil {
			continue
		}
		if !reflect.DeepEqual(v.Field(f.index).Interface(), p.Elem().Interface()) {
			d.add(f.Key, wasReplaced(prev, f.Key, v.Field(f.index)))
			v.Field(f.index).Set(p.Elem())
		}
	}
}
