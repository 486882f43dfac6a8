package store

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestParseSpoolName(t *testing.T) {
	for name, want := range map[string]*SpoolEntry{
		"1795396712648-4242-0a1b2c3d.validate.stdout": {1795396712648, 4242, "1795396712648-4242-0a1b2c3d.validate"},
		"1795396712648-4242-0a1b2c3d.validate.json":   {1795396712648, 4242, "1795396712648-4242-0a1b2c3d.validate"},
		"1795396712648-7-ff.step.prompt":              {1795396712648, 7, "1795396712648-7-ff.step"},
		".1795396712648-7-ff.step.json.tmp-123456":    {1795396712648, 7, "1795396712648-7-ff.step"},
		"1795396712648-0-ff.step.json":                nil, // no pid
		"1795396712648-7-XYZ.step.json":               nil,
		"1795396712648-7.step.json":                   nil,
		"notes.txt":                                   nil,
		"1795396712648-7-ff.step":                     nil,
		"1795396712648-7-ff..json":                    nil,
		"-7-ff.step.json":                             nil,
		"99999999999999999999999-7-ff.step.json":      nil,
	} {
		got, ok := ParseSpoolName(name)
		if (want != nil) != ok || (ok && got != *want) {
			t.Errorf("%q: got %+v %v, want %+v", name, got, ok, want)
		}
	}
}

func FuzzParseSpoolName(f *testing.F) {
	f.Add("1795396712648-4242-0a1b2c3d.validate.stdout")
	f.Add(".1-2-3.x.json.tmp-9")
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, name string) {
		e, ok := ParseSpoolName(name)
		if !ok {
			return
		}
		if e.PID <= 0 || !strings.Contains(name, strconv.Itoa(e.PID)) || !strings.Contains(name, e.Base) {
			t.Fatalf("%q parsed to %+v", name, e)
		}
	})
}

func TestDeadCreatorDirs(t *testing.T) {
	for name, want := range map[string]bool{
		".new-r-1-ab12":                               false, // pid 1 is alive
		".new-my-run-2147483646-ab12":                 true,  // no such pid
		".new-x-" + strconv.Itoa(os.Getpid()) + "-ff": false,
		".tomb-x-1":                                   false,
		"run-1-2":                                     false,
	} {
		if got := deadCreator(name); got != want {
			t.Errorf("deadCreator(%q) = %v, want %v", name, got, want)
		}
	}
}
