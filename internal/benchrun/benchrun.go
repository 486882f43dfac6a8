// Package benchrun measures commands for make bench: each command runs in
// turn (A B A B ...) for a number of rounds, so a busy machine's drift
// falls on all alike, and each run gives its wall time and its CPU time
// (user+sys of the process and of every descendant it or this process
// reaped) as the kernel's rusage reports it, beside its peak RSS.
package benchrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Sample is one timed run of one command.
type Sample struct {
	Wall   float64 `json:"wall"`   // seconds
	CPU    float64 `json:"cpu"`    // user+sys seconds, descendants included
	User   float64 `json:"user"`   // seconds
	Sys    float64 `json:"sys"`    // seconds
	MaxRSS int64   `json:"maxrss"` // KiB, the largest single process
}

// Stat is the spread of one quantity over the rounds.
type Stat struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// Result is one command's samples and their spread.
type Result struct {
	Command string   `json:"command"`
	Wall    Stat     `json:"wall"`
	CPU     Stat     `json:"cpu"`
	MaxRSS  int64    `json:"maxrss"` // KiB, over all rounds
	Samples []Sample `json:"samples"`
}

// Report is what one measurement prints.
type Report struct {
	Rounds    int      `json:"rounds"`
	LoadStart string   `json:"load_start"` // /proc/loadavg's first three fields
	LoadEnd   string   `json:"load_end"`
	Results   []Result `json:"results"`
}

// Config says what to measure.
type Config struct {
	Commands [][]string // argv of each command
	Prepare  []string   // argv run untimed before every timed run, if any
	Rounds   int
	Warmup   int // untimed rounds first
	Dir      string
	Timeout  time.Duration // per run; 0 is none
}

// Run measures cfg's commands, alternating them round by round.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if len(cfg.Commands) == 0 || cfg.Rounds < 1 {
		return Report{}, errors.New("benchrun: no command or no round")
	}
	if err := becomeSubreaper(); err != nil {
		return Report{}, err
	}
	rep := Report{Rounds: cfg.Rounds, LoadStart: LoadAvg()}
	samples := make([][]Sample, len(cfg.Commands))
	for r := -cfg.Warmup; r < cfg.Rounds; r++ {
		for i, argv := range cfg.Commands {
			if len(cfg.Prepare) > 0 {
				if _, err := runOne(ctx, cfg, cfg.Prepare); err != nil {
					return rep, fmt.Errorf("prepare: %w", err)
				}
			}
			s, err := runOne(ctx, cfg, argv)
			if err != nil {
				return rep, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
			}
			if r >= 0 {
				samples[i] = append(samples[i], s)
			}
		}
	}
	rep.LoadEnd = LoadAvg()
	for i, argv := range cfg.Commands {
		rep.Results = append(rep.Results, summarize(strings.Join(argv, " "), samples[i]))
	}
	return rep, nil
}

func summarize(cmd string, ss []Sample) Result {
	res := Result{Command: cmd, Samples: ss}
	var wall, cpu []float64
	for _, s := range ss {
		wall, cpu = append(wall, s.Wall), append(cpu, s.CPU)
		res.MaxRSS = max(res.MaxRSS, s.MaxRSS)
	}
	res.Wall, res.CPU = Spread(wall), Spread(cpu)
	return res
}

// Spread gives the minimum, median and maximum of xs.
func Spread(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Stat{Min: s[0], Median: med, Max: s[n-1]}
}

// runOne runs argv with stdout discarded, and returns its sample once it
// and every orphan it left (reparented here) have exited.
func runOne(ctx context.Context, cfg Config, argv []string) (Sample, error) {
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = cfg.Dir
	cmd.Stderr = &capped{b: &stderr, n: 8 << 10}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Sample{}, err
	}
	err := cmd.Wait()
	wall := time.Since(start).Seconds()
	if err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		reapOrphans(ctx)
		return Sample{}, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	s := add(Sample{Wall: wall}, ru)
	orphans := reapOrphans(ctx)
	for _, o := range orphans {
		s = add(s, o)
	}
	if ctx.Err() != nil {
		return s, fmt.Errorf("an orphan outlived the run: %w", ctx.Err())
	}
	return s, nil
}

func add(s Sample, ru *syscall.Rusage) Sample {
	if ru == nil {
		return s
	}
	u := float64(ru.Utime.Nano()) / 1e9
	k := float64(ru.Stime.Nano()) / 1e9
	s.User += u
	s.Sys += k
	s.CPU += u + k
	s.MaxRSS = max(s.MaxRSS, int64(ru.Maxrss))
	return s
}

// LoadAvg is the 1, 5 and 15 minute load averages, or "?" off Linux.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// capped keeps the first n bytes written to it.
type capped struct {
	b *bytes.Buffer
	n int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.n - c.b.Len(); room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
