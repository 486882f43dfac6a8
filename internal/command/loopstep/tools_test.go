package loopstep

import (
	"reflect"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/runconfig"
)

// TestToolsFormats: the driver checks agent_format at start against the
// choices runconfig.Tools names, which must be the formats loop-step
// takes (a misspelt one failed the run at its first step, exit 70).
func TestToolsFormats(t *testing.T) {
	f, _ := reflect.TypeFor[runconfig.Tools]().FieldByName("AgentFormat")
	if got, want := f.Tag.Get("choice"), strings.Join(agent.Formats, "|"); got != want {
		t.Errorf("runconfig.Tools.AgentFormat choices %q, loop-step takes %q", got, want)
	}
}
