package loopdrive

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/loopkit/loopkit/internal/cli"
	"github.com/loopkit/loopkit/internal/proc"
)

// RequestsEnv, set to its pid by the driver on the holder it starts with a
// pipe on stdin, asks the holder to answer the driver's `next`, `record` and
// `attempt` calls: a Go process started for each would cost every
// iteration milliseconds of CPU. The holder takes it out of its
// environment, so nothing it starts inherits it.
const RequestsEnv = "LOOPKIT_DRIVE_REQUESTS"

// Protocol is the version of what the driver and its holder say to each
// other: RequestsEnv, the records and the requests. The holder's first
// record is protocol=Protocol, and scripts/loop.d/drive.sh's DRIVE_PROTOCOL
// must be the same: a driver and a loop-drive of different versions (a CI
// cache of old commands, a driver installed apart from them) are refused
// with one line, not left waiting on each other. Raise it with any change
// of those.
const Protocol = 2

// served are the modes a holder answers, for the run it holds only.
var served = []string{"next", "record", "attempt"}

// request is one call: NUL-terminated fields, the error file (as
// LOOPKIT_ERROR_FILE would name it, or empty), the arguments up to an
// empty field, then what the call reads on stdin.
type request struct {
	errorFile string
	args      []string
	stdin     []byte
}

// readRequests sends each request read from r, until r ends or breaks.
func readRequests(r io.Reader, out chan<- request) {
	defer close(out)
	br := bufio.NewReaderSize(r, 64<<10)
	field := func() ([]byte, bool) {
		b, err := br.ReadBytes(0)
		if err != nil {
			return nil, false
		}
		return b[:len(b)-1], true
	}
	for {
		f, ok := field()
		if !ok {
			return
		}
		req := request{errorFile: string(f)}
		for {
			if f, ok = field(); !ok {
				return
			}
			if len(f) == 0 {
				break
			}
			req.args = append(req.args, string(f))
		}
		if req.stdin, ok = field(); !ok { // the call's stdin, not copied again
			return
		}
		out <- req
	}
}

// answer runs req as `loop-drive ARGS` would, for run id, and writes what
// it printed, a NUL, and its exit status on a line. NUL bytes in what it
// printed are dropped, as the shell's $(...) drops them.
func answer(env *cli.Env, id string, req request) error {
	holding = id
	var out bytes.Buffer
	renv := &cli.Env{Name: env.Name, Args: req.args, Stdin: bytes.NewReader(req.stdin),
		Stdout: bufio.NewWriter(&out), Stderr: env.Stderr, Log: env.Log, ErrorFile: req.errorFile}
	var code int
	if !forRun(req.args, id) {
		code = renv.Finish(cli.Usagef("the holder of run %s answers only %v for that run", id, served))
	} else {
		code = renv.Finish(cli.Done(run(renv)))
	}
	reply := append(bytes.ReplaceAll(out.Bytes(), []byte{0}, nil), 0)
	reply = strconv.AppendInt(reply, int64(code), 10)
	if _, err := env.Stdout.Write(append(reply, '\n')); err != nil {
		return err
	}
	return env.Stdout.Flush()
}

// holding is the run this process holds and answers for, once it does:
// its decisions are its driver's own (nextaction.Input.Driver).
var holding string

// forRun reports whether args are a served mode whose one --run is id.
func forRun(args []string, id string) bool {
	if len(args) == 0 || !slices.Contains(served, args[0]) {
		return false
	}
	runs, ours := 0, false
	for i, a := range args {
		if strings.HasPrefix(a, "--run") {
			runs++
			ours = a == "--run="+id || a == "--run" && i+1 < len(args) && args[i+1] == id
		}
	}
	return runs == 1 && ours
}

// serving is the pid of the driver that asked for requests (RequestsEnv),
// 0 when none did; it takes the variable out of the environment.
func serving() int {
	pid, err := strconv.Atoi(os.Getenv(RequestsEnv))
	os.Unsetenv(RequestsEnv)
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// asChild sets what the driver's children find in their environment: the
// store it found and the driver's pid (config warnings are the driver's).
func asChild(store string, parent int) {
	os.Setenv("LOOP_STORE", store)
	os.Setenv(proc.DriverEnv, fmt.Sprint(parent))
}
