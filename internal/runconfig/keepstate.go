package runconfig

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"sort"
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

// stateJSON is s's state fields as one JSON object, zero values included,
// with extra's keys (a JSON object; nil: none).
func stateJSON(s *Settings, extra map[string]json.RawMessage) []byte {
	m := map[string]any{}
	for k, v := range extra {
		m[k] = v
	}
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
// readers take run.json's rather than an older one. The values kept with
// it (KeepTotals) stay as they were.
func KeepState(runDir string, s *Settings) error { return KeepTotals(runDir, s, nil) }

// KeepTotals is KeepState, keeping with the state totals, a JSON object
// of run.json's own values that loopkit alone writes (the totals a budget
// reads: an agent that zeroed total_cost_usd in run.json escaped
// --max-cost); nil keeps those kept before. EnforceTotals reads them back.
func KeepTotals(runDir string, s *Settings, totals []byte) error {
	if !IsKept(runDir) {
		return nil
	}
	path, err := statePath(runDir)
	if err != nil {
		return err
	}
	old, _ := safefile.ReadFile(path, 1<<16)
	extra := map[string]json.RawMessage{}
	if totals != nil {
		err = json.Unmarshal(totals, &extra)
	} else if own, _, ok := splitPrev(old); ok {
		err = json.Unmarshal(own, &extra)
	}
	if err != nil {
		return err
	}
	data := stateJSON(s, extra)
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

// EnforceTotals sets the fields of v (a pointer to a struct of run.json's
// totals, as KeepTotals was given them) to the values kept outside the
// workspace, where there are; a field run.json held another value for
// is one of s.Changed(), unless the kept file replaced that value (a
// writer cut between the two writes). Call it after Enforce.
func EnforceTotals(runDir string, s *Settings, v any) {
	path, err := statePath(runDir)
	if err != nil {
		return
	}
	data, err := safefile.ReadFile(path, 1<<16)
	if err != nil {
		return
	}
	own, prev, ok := splitPrev(data)
	var kept, have map[string]json.RawMessage
	if !ok || json.Unmarshal(own, &kept) != nil {
		return
	}
	if cur, err := json.Marshal(v); err != nil || json.Unmarshal(cur, &have) != nil {
		return
	}
	take := map[string]json.RawMessage{}
	for k, was := range have {
		want, ok := kept[k]
		if !ok {
			continue // kept before totals were
		}
		take[k] = want
		// both as json.Marshal writes them: equal values, equal bytes
		if bytes.Equal(was, want) || bytes.Equal(prev[k], was) || contains(s.changed, k) {
			continue
		}
		s.changed = append(s.changed, k)
		sort.Strings(s.changed)
	}
	if b, err := json.Marshal(take); err == nil {
		json.Unmarshal(b, v)
	}
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
