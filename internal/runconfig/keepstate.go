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

// readStatePath is statePath for a reader (readPath).
func readStatePath(runDir string) (string, error) {
	path, err := readPath(runDir)
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
// --max-cost); nil keeps those kept before. EnforceWithTotals reads them back.
func KeepTotals(runDir string, s *Settings, totals []byte) error {
	if !IsKept(runDir) {
		return nil
	}
	path, err := statePath(runDir)
	if err != nil {
		return err
	}
	old, _ := safefile.ReadFile(path, 1<<16)
	oldOwn, _, oldOK := splitPrev(old)
	extra := map[string]json.RawMessage{}
	if totals != nil {
		err = json.Unmarshal(totals, &extra)
	} else if oldOK {
		err = json.Unmarshal(oldOwn, &extra)
	}
	if err != nil {
		return err
	}
	data := stateJSON(s, extra)
	if oldOK && bytes.Equal(oldOwn, data) {
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

// EnforceWithTotals is Enforce, then sets the fields of totals (a pointer
// to a struct of run.json's totals, as KeepTotals was given them) to the
// values kept outside the workspace, where there are; a field run.json
// held another value for is one of s.Changed(), unless the kept file
// replaced that value (a writer cut between the two writes). The kept
// state is read once for both.
func EnforceWithTotals(runDir string, s *Settings, totals any) {
	d, ok := enforceFixed(runDir, s)
	st := readState(runDir)
	if ok {
		s.enforceState(st, d)
	}
	st.enforceTotals(s, totals)
}

// keptState is a run's kept state file, decoded: its own values and those
// they replaced (prev.go); nil when none is kept or it is unreadable.
type keptState struct {
	own, prev map[string]json.RawMessage
}

func readState(runDir string) *keptState {
	path, err := readStatePath(runDir)
	if err != nil {
		return nil
	}
	data, err := safefile.ReadFile(path, 1<<16)
	if err != nil {
		return nil
	}
	own, prev, ok := splitPrev(data)
	st := &keptState{prev: prev}
	if !ok || json.Unmarshal(own, &st.own) != nil {
		return nil
	}
	return st
}

// enforceTotals is EnforceWithTotals' part after Enforce's.
func (st *keptState) enforceTotals(s *Settings, v any) {
	if st == nil {
		return
	}
	var have map[string]json.RawMessage
	if cur, err := json.Marshal(v); err != nil || json.Unmarshal(cur, &have) != nil {
		return
	}
	take := map[string]json.RawMessage{}
	for k, was := range have {
		want, ok := st.own[k]
		if !ok {
			continue // kept before totals were
		}
		take[k] = want
		// both as json.Marshal writes them: equal values, equal bytes
		if bytes.Equal(was, want) || bytes.Equal(st.prev[k], was) || contains(s.changed, k) {
			continue
		}
		s.changed = append(s.changed, k)
		sort.Strings(s.changed)
	}
	if b, err := json.Marshal(take); err == nil {
		json.Unmarshal(b, v)
	}
}

// enforceState replaces s's state with st's (none kept: run.json's stays),
// adding the keys run.json held other values for to d, and sets (and
// returns) s.Changed() from d.
func (s *Settings) enforceState(st *keptState, d differences) []string {
	if st != nil {
		v := reflect.ValueOf(s).Elem()
		fields := Fields()
		for i := range fields {
			f := &fields[i]
			raw, ok := st.own[f.Key]
			if !f.State || !ok {
				continue
			}
			p := reflect.New(f.kind)
			if json.Unmarshal(raw, p.Interface()) != nil {
				continue
			}
			if !reflect.DeepEqual(v.Field(f.index).Interface(), p.Elem().Interface()) {
				d.add(f.Key, wasReplaced(st.prev, f.Key, v.Field(f.index)))
				v.Field(f.index).Set(p.Elem())
			}
		}
	}
	changed := append([]string(nil), s.bad...) // unreadable: the default was taken
	for _, k := range d.keys {
		if d.changed && !contains(changed, k) {
			changed = append(changed, k)
		}
	}
	sort.Strings(changed)
	s.changed = changed
	return changed
}
