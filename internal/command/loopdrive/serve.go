package loopdrive

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
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
const Protocol = 4

// served are the modes a holder answers, for the run it holds only.
var served = []string{"next", "record", "attempt"}

// request is one call: NUL-terminated fields, the key (server), the error
// file (as LOOPKIT_ERROR_FILE would name it, or empty), the arguments up
// to an empty field, then what the call reads on stdin.
type request struct {
	key       string
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
		k, ok := field()
		if !ok {
			return
		}
		f, ok := field()
		if !ok {
			return
		}
		req := request{key: string(k), errorFile: string(f)}
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

// server answers the requests of the driver that holds its key, which
// the holder gives it alone (the key= record) before any agent runs.
// Pipes are no secret from a process of the same user: the agent can open
// the driver's and the holder's through /proc/PID/fd and write a request
// (a record of a forged pass) or an answer (stop completed) of its own.
// So the key starts every request and every answer, and a request without
// it is not answered: the driver, finding an answer without the key,
// fails the run (TestHolderRefusesUnkeyed, loop_holder_pipe_forged).
type server struct {
	key string
	// tampered: a request came without the key; the stream may be out of
	// step, so every later request fails the run too
	tampered bool
	// keyed: a request with the key came; the driver asks before any
	// agent runs, so a first one without it is most likely a driver of
	// another loopkit version's (one from before the key, or the protocol
	// check), which the person fixes by installing the two together
	keyed bool
}

// newServer makes a server with a fresh random key.
func newServer() *server {
	b := make([]byte, 16)
	rand.Read(b)
	return &server{key: hex.EncodeToString(b)}
}

// answer runs req as `loop-drive ARGS` would, for run id, and writes the
// key, a NUL, a line of the length of what it printed and its exit status,
// then what it printed: the driver reads that many bytes at once (read -N),
// where reading up to a NUL costs bash a read(2) per byte. NUL bytes in
// what it printed are dropped, as the shell's $(...) drops them.
// A request without the key gets an answer without it and does nothing:
// not even its error file is written.
func (s *server) answer(env *cli.Env, id string, req request) error {
	if subtle.ConstantTimeCompare([]byte(req.key), []byte(s.key)) != 1 {
		s.tampered = true
		who := "another process wrote there (the agent, through /proc/PID/fd)"
		if !s.keyed {
			who = "the driver is another loopkit version's than this loop-drive (install the driver and the commands " +
				"from one version together: make install, or make build in a checkout), or another process wrote there"
		}
		fmt.Fprintf(env.Stderr, "loop-drive: a request without the driver's key came on the pipe to the holder of run %s: "+
			"%s; not answered\n", id, who)
		return write(env, []byte("\x000 70\n"))
	}
	s.keyed = true
	holding = id
	var out bytes.Buffer
	renv := &cli.Env{Name: env.Name, Args: req.args, Stdin: bytes.NewReader(req.stdin),
		Stdout: bufio.NewWriter(&out), Stderr: env.Stderr, Log: env.Log, ErrorFile: req.errorFile}
	var code int
	switch {
	case s.tampered:
		code = renv.Finish(cli.Failf("a request without the driver's key came on the pipe to the holder of run %s: "+
			"another process wrote there (the agent, through /proc/PID/fd), so the run fails", id))
	case !forRun(req.args, id):
		code = renv.Finish(cli.Usagef("the holder of run %s answers only %v for that run", id, served))
	default:
		code = renv.Finish(cli.Done(run(renv)))
	}
	text := bytes.ReplaceAll(out.Bytes(), []byte{0}, nil)
	reply := append([]byte(s.key), 0)
	reply = strconv.AppendInt(reply, int64(len(text)), 10)
	reply = strconv.AppendInt(append(reply, ' '), int64(code), 10)
	return write(env, append(append(reply, '\n'), text...))
}

// write sends one answer to the driver.
func write(env *cli.Env, b []byte) error {
	if _, err := env.Stdout.Write(b); err != nil {
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
