package proc

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// leftoverHelper checks, in a process of its own (no other test's
// children), that hasChildren sees what children would: none at first,
// an adopted orphan (which KillLeftovers kills), a child exited but not
// yet reaped, and none once all are reaped.
func leftoverHelper() {
	var bad []string
	check := func(what string, want bool) {
		if got := hasChildren(); got != want {
			bad = append(bad, fmt.Sprintf("%s: hasChildren %v, want %v", what, got, want))
		}
	}
	check("no child yet", false)
	if n := KillLeftovers(time.Second, 0); n != 0 {
		bad = append(bad, fmt.Sprintf("no child: KillLeftovers killed %d", n))
	}
	AdoptLeftovers()
	if err := exec.Command("sh", "-c", "setsid sleep 60 >/dev/null 2>&1 & exit 0").Run(); err != nil {
		bad = append(bad, "sh: "+err.Error())
	}
	check("an orphan adopted", true)
	if n := KillLeftovers(5*time.Second, 0); n != 1 {
		bad = append(bad, fmt.Sprintf("an orphan: KillLeftovers killed %d, want 1", n))
	}
	check("the orphan killed and reaped", false)
	c := exec.Command("true")
	if err := c.Start(); err != nil {
		bad = append(bad, "true: "+err.Error())
	} else {
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.Process.Pid)); err != nil || strings.Contains(string(b), ") Z ") {
				break
			}
		}
		check("a child exited, not reaped", true)
		c.Wait()
		check("the child reaped", false)
	}
	fmt.Print(strings.Join(bad, "\n"))
	os.Exit(0)
}

// KillLeftovers asks the kernel whether any child is left before it
// reads /proc (hasChildren), and must not miss one that is.
func TestHasChildren(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROC_LEFTOVER_HELPER=1")
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("helper: %v\n%s", err, out)
	}
}
