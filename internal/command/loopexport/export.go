// Package loopexport is the loop-export command: runs of the store, or
// records on stdin, sent as OpenTelemetry traces.
package loopexport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/otelexport"
	"github.com/loopkit/loopkit/internal/safefile"
	"github.com/loopkit/loopkit/internal/settings"
	"github.com/loopkit/loopkit/internal/store"
)

const usage = `[OPTIONS] [RUN...]
loop-export --all [--since D] [--follow]
loop-export --from - < RECORDS

Examples:
  $ OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 loop-export --all
  $ loop-export --stdout RUN > run.otlp.jsonl
  $ loop-view logs RUN --json --follow | loop-export --from -

Sends runs as OpenTelemetry traces over OTLP: one trace per run, a span
per iteration, the agent step, its tool calls and the validation under it,
with the GenAI token attributes. Ids come from the run, so sending again
gives the same trace and span ids. The destination is set by the standard
OTEL_EXPORTER_OTLP_* variables or --endpoint; --stdout writes OTLP/JSON
lines instead (the Collector's otlpjsonfile format). No prompt, output,
failure message or tool argument is sent without --include-content, and
then secrets are redacted. --follow keeps sending new iterations; a
checkpoint in the store (export/) lets a restarted --follow go on where it
stopped.

Exit status: 0 sent (and --follow stopped by SIGINT, SIGTERM or SIGHUP,
its checkpoint saved: that is how a follow ends); 1 no such run, the
destination refused or could not be reached after the retries, or took
the spans but rejected some (they are not sent again); 2 usage; 65 bad
records on stdin; 130, 143 or 129 an export without --follow stopped by
SIGINT, SIGTERM or SIGHUP before it was done.`

// Options are loop-export's flags.
type Options struct {
	cli.Common
	All            bool         `long:"all" description:"every run of the store"`
	Since          cli.Duration `long:"since" value-name:"D" description:"with --all: runs created in the last D"`
	From           string       `long:"from" value-name:"FILE" description:"read records (NDJSON) from FILE ('-': stdin)" unquote:"false"`
	Follow         bool         `long:"follow" description:"keep sending new iterations until interrupted"`
	Stdout         bool         `long:"stdout" description:"write OTLP/JSON lines to stdout instead of sending"`
	Endpoint       string       `long:"endpoint" value-name:"URL" description:"OTLP endpoint (default: OTEL_EXPORTER_OTLP_* variables)" unquote:"false"`
	Protocol       string       `long:"protocol" value-name:"P" choice:"http/protobuf" choice:"grpc" description:"OTLP transport (default: OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf)"`
	Header         []string     `long:"header" value-name:"K=V" description:"header sent with each request (repeatable)" unquote:"false"`
	Insecure       bool         `long:"insecure" description:"no TLS: to the default endpoint (http://localhost:4318) and over gRPC"`
	IncludeContent bool         `long:"include-content" description:"send messages, outputs and tool arguments, redacted"`
	Redact         []string     `long:"redact" value-name:"REGEX" description:"also redact matches of REGEX (repeatable)" unquote:"false"`
	Timeout        cli.Duration `long:"timeout" value-name:"D" default:"10s" description:"time for one request"`
	RetryFor       cli.Duration `long:"retry-for" value-name:"D" default:"1m" description:"give up a batch after retrying for D"`
	Interval       cli.Duration `long:"interval" value-name:"D" default:"500ms" description:"with --follow: how often to look for new records"`
}

// Main is loop-export.
func Main(env *cli.Env) error {
	return cli.Done(run(env))
}

func run(env *cli.Env) error {
	opts := &Options{}
	p := cli.NewParser(env, opts, usage)
	args, err := cli.Parse(env, p, &opts.Common, env.Args)
	if err != nil {
		return err
	}
	if err := checkOptions(env, opts, args); err != nil {
		return err
	}
	redactor, err := otelexport.NewContent(opts.Redact)
	if err != nil {
		return env.UsageError("--redact: %v", err)
	}
	ctx, _, stop := cli.OnSignals(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// A signal ends the loop at once but gives a send under way a moment to
	// finish and its checkpoint to be written, so a restart sends no
	// duplicate of what the destination already has.
	sendCtx, cancelSend := context.WithCancel(context.Background())
	defer cancelSend()
	go func() {
		<-ctx.Done()
		time.AfterFunc(stopGrace, cancelSend)
	}()
	dest, exp, err := newExporter(env, opts)
	if err != nil {
		return err
	}
	sess, err := otelexport.NewSession(exp, redactor, opts.IncludeContent, cli.VersionString())
	if err != nil {
		return cli.Failf("%w", err)
	}
	defer sess.Close()
	if opts.From != "" {
		return fromRecords(ctx, sendCtx, env, sess, opts.From)
	}
	st, _, err := settings.Open(env, p, &opts.Common, opts)
	if err != nil {
		return err
	}
	if !opts.Follow {
		if err := settings.Named(&opts.Common, st); err != nil {
			return err
		}
	}
	return fromStore(ctx, sendCtx, env, sess, st, opts, args, dest)
}

// stopGrace is how long a send under way may go on after a signal.
const stopGrace = 2 * time.Second

func checkOptions(env *cli.Env, opts *Options, args []string) error {
	for _, id := range args {
		if err := store.ValidRunID(id); err != nil {
			return env.UsageError("%v", err)
		}
	}
	switch {
	case opts.From != "" && (opts.All || len(args) > 0):
		return env.UsageError("--from reads records, not runs: drop --from or the runs and --all")
	case opts.From == "" && !opts.All && len(args) == 0:
		return env.UsageError("no runs: give RUN..., --all, or --from -")
	case opts.All && len(args) > 0:
		return env.UsageError("--all and RUN... both name runs: give one of them")
	case opts.Since != 0 && !opts.All:
		return env.UsageError("--since goes with --all")
	case opts.Stdout && (opts.Endpoint != "" || len(opts.Header) > 0):
		return env.UsageError("--stdout writes locally: drop --endpoint and --header")
	case opts.Timeout <= 0 || opts.Interval <= 0 || opts.RetryFor < 0:
		return env.UsageError("--timeout and --interval must be positive, --retry-for 0 or more")
	}
	return nil
}

// fromRecords sends records read from a file or stdin, each iteration as
// it comes (so `--follow` of loop-view composes) and the roots at the end.
func fromRecords(ctx, sendCtx context.Context, env *cli.Env, sess *otelexport.Session, from string) error {
	var in io.Reader = env.Stdin
	if from != "-" {
		// a store's records are the agent's to plant in: no link, no FIFO
		f, err := safefile.Open(from)
		if err != nil {
			return cli.Failf("%w", err)
		}
		defer f.Close()
		in = f
	}
	stream := sess.NewStream()
	r := bufio.NewReaderSize(in, 64<<10)
	for n := 1; ; n++ {
		line, err := readRecord(r)
		if errors.Is(err, safefile.ErrTooBig) {
			return cli.BadInput(fmt.Errorf("%s: line %d: %v", from, n, err))
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if e := stream.Add(line); e != nil {
				return cli.BadInput(fmt.Errorf("%s: line %d: %v", from, n, e))
			}
			if err := sess.Flush(sendCtx); err != nil {
				return cli.Failf("export: %w", err)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return cli.Failf("%s: %w", from, err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	stream.End()
	if err := sess.Flush(sendCtx); err != nil {
		return cli.Failf("export: %w", err)
	}
	if rej := sess.Rejected(); rej != nil {
		return cli.Failf("export: %w", rej)
	}
	return nil
}

// maxRecordLine caps one record read by --from: far above any record
// loopkit writes, so a line without end is refused, not held whole.
const maxRecordLine = 64 << 20

// readRecord reads one line as ReadBytes does, up to maxRecordLine bytes.
func readRecord(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxRecordLine {
			return nil, fmt.Errorf("a record of more than %d bytes: %w", maxRecordLine, safefile.ErrTooBig)
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// fromStore sends the runs named (or all of them) and, with --follow,
// what they record next, keeping the destination's checkpoint.
func fromStore(ctx, sendCtx context.Context, env *cli.Env, sess *otelexport.Session, st *store.Store, opts *Options, args []string, dest string) error {
	var cp *otelexport.Checkpoint
	if dest != "" {
		var err error
		if cp, err = otelexport.LoadCheckpoint(st.Root, dest); err != nil {
			return cli.Failf("%w", err)
		}
	} else if opts.Follow { // --stdout: each poll sent everything again
		cp = otelexport.MemoryCheckpoint()
	}
	var faults []error
	known := seen{}
	for last := false; ; {
		// A signal to --follow ends the loop after one last look, within
		// the send grace, so a run's end written just before is not missed.
		last = last || !opts.Follow || ctx.Err() != nil
		ids, err := runIDs(st, opts, args)
		if err != nil {
			return err
		}
		for _, id := range ids {
			// without --follow a signal stops before the next run
			if sendCtx.Err() != nil || (!opts.Follow && ctx.Err() != nil) {
				return stopped(ctx, opts, cp != nil, id)
			}
			files := look(st, id)
			if opts.Follow && known.skip(id, files) {
				continue
			}
			err := sendRun(sendCtx, sess, st, cp, id, !opts.Follow)
			if err != nil && sendCtx.Err() != nil {
				return stopped(ctx, opts, cp != nil, id)
			}
			switch {
			case err == nil:
				known[id] = files
			case runFault(err):
				known.failed(id, files)
			}
			if opts.All && errors.Is(err, store.ErrNoSuchRun) {
				continue // deleted, or not made yet, since it was listed
			}
			if runFault(err) && last {
				faults = append(faults, err) // the other runs go on
				continue
			}
			if err != nil {
				if last {
					return err
				}
				env.Log.Warn("export", "run", id, "err", err)
			}
		}
		if last {
			return runFaults(env, faults)
		}
		select {
		case <-ctx.Done():
		case <-time.After(opts.Interval.D()):
		}
	}
}

// sendRun sends what a run holds beyond the checkpoint's marks, moving
// the marks after each delivery; without a checkpoint (--stdout, not
// following) everything is sent.
func sendRun(ctx context.Context, sess *otelexport.Session, st *store.Store, cp *otelexport.Checkpoint, id string, final bool) error {
	marks := &otelexport.RunMarks{}
	if cp != nil {
		meta, err := st.ReadRun(id)
		if err != nil {
			return cli.Failf("%w", &otelexport.RunFault{Err: err})
		}
		marks = cp.Marks(id, meta.CreatedAt)
	}
	sent := func(next otelexport.RunMarks) error {
		if cp == nil || next == *marks {
			return nil
		}
		*marks = next
		if err := cp.Save(); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		return nil
	}
	err := sess.StoreRun(ctx, st, id, *marks, final, sent)
	rej := sess.Rejected()
	if err == nil && rej != nil {
		err = rej // the marks moved on: sent again, they would be rejected again
	}
	if err != nil {
		return cli.Failf("export %s: %w", id, err)
	}
	return nil
}

func runIDs(st *store.Store, opts *Options, args []string) ([]string, error) {
	if !opts.All {
		for _, id := range args {
			if err := st.FindRun(id); err != nil {
				return nil, cli.Failf("%w", err)
			}
		}
		return args, nil
	}
	ids, err := st.RunIDs()
	if err != nil {
		return nil, cli.Failf("%w", err)
	}
	if opts.Since == 0 {
		return ids, nil
	}
	cutoff := time.Now().Add(-opts.Since.D()).UnixMilli()
	return slices.DeleteFunc(ids, func(id string) bool {
		r, err := st.ReadRun(id)
		return err != nil || r.CreatedAt < cutoff
	}), nil
}
