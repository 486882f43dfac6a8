package loopstep

import "github.com/loopkit/loopkit/internal/agent"

// usageFileEnv names the file any agent may write its usage to.
const usageFileEnv = agent.UsageFileEnv

// applyUsageFile puts the figures the agent wrote to path over those
// parsed from its output; a bad file is warned about and ignored. Then
// every figure is ranged: one out of range is dropped with a warning and
// named in the record's usage_ignored.
func (s *stepRun) applyUsageFile(path string, u *agent.Usage) {
	for _, bad := range u.Ignored { // dropped by the parser, call by call
		s.env.Log.Warn("usage figure ignored", "why", bad)
	}
	if err := agent.ApplyUsageFile(path, u); err != nil {
		s.env.Log.Warn("usage file ignored", "file", path, "err", err)
		u.Ignored = append(u.Ignored, "usage file: "+err.Error())
	}
	for _, bad := range u.Range() {
		s.env.Log.Warn("usage figure ignored", "why", bad)
	}
}
