package gitstore

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Change is one path of a diff between two trees, from `git diff --raw`.
type Change struct {
	Path             string
	OldMode, NewMode string
	OldID, NewID     string
}

// Changes lists what differs between the trees (or commits) from and to,
// sorted by path: read from the loose objects when they are all there,
// else from git.
func (r *Repo) Changes(from, to string) ([]Change, error) {
	if cs, err := r.objects().changes(from, to); err == nil {
		return cs, nil
	}
	return r.gitChanges(from, to)
}

func (r *Repo) gitChanges(from, to string) ([]Change, error) {
	out, err := r.git().run("diff", "--raw", "-z", "--no-renames", "--no-abbrev", from, to, "--")
	if err != nil {
		return nil, err
	}
	var cs []Change
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		head := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		if len(head) < 5 {
			return nil, fmt.Errorf("git diff --raw: unexpected %q", fields[i])
		}
		cs = append(cs, Change{Path: string(fields[i+1]), OldMode: head[0], NewMode: head[1], OldID: head[2], NewID: head[3]})
	}
	return cs, nil
}

// Paths are the changes' paths.
func Paths(cs []Change) []string {
	ps := make([]string, 0, len(cs))
	for _, c := range cs {
		ps = append(ps, c.Path)
	}
	return ps
}

// largest is the size of the biggest blob the changes name (gitlinks,
// which are commits of another repository, left out).
func (r *Repo) largest(cs []Change) (int64, error) {
	var ids bytes.Buffer
	for _, c := range cs {
		for _, p := range [][2]string{{c.OldMode, c.OldID}, {c.NewMode, c.NewID}} {
			if p[0] != "160000" && strings.Trim(p[1], "0") != "" {
				ids.WriteString(p[1] + "\n")
			}
		}
	}
	if ids.Len() == 0 {
		return 0, nil
	}
	if big, err := r.looseLargest(ids.String()); err == nil {
		return big, nil
	}
	g := r.git()
	g.stdin = &ids
	out, err := g.run("cat-file", "--batch-check=%(objectsize)")
	if err != nil {
		return 0, err
	}
	var big int64
	for _, l := range strings.Fields(string(out)) {
		if n, err := strconv.ParseInt(l, 10, 64); err == nil {
			big = max(big, n)
		}
	}
	return big, nil
}

// looseLargest is largest from loose objects alone (ids one per line).
func (r *Repo) looseLargest(ids string) (int64, error) {
	db := r.objects()
	var big int64
	for _, id := range strings.Fields(ids) {
		n, err := db.size(id)
		if err != nil {
			return 0, err
		}
		big = max(big, n)
	}
	return big, nil
}

// PatchResult says what WritePatch wrote.
type PatchResult struct {
	// Summary is set when the diff was over the limit (or held a file too
	// big to diff in bounded memory) and only a --stat summary was kept.
	Summary bool
	Bytes   int64
	// Digest is "sha256:<hex>" of the whole patch, or, when only a summary
	// was kept, of the change list (paths, modes and blob ids, which name
	// the contents exactly): equal digests mean the same change.
	Digest string
}

// PatchFile is where WritePatch writes: an *os.File or a *wfile.File.
type PatchFile interface {
	io.Writer
	Truncate(size int64) error
	Seek(offset int64, whence int) (int64, error)
}

// WritePatch writes the binary diff from..to into f, streaming: at most
// limit bytes. A larger diff, or one naming a file past git's big-file
// threshold (whose diff git would build in memory), is replaced by note
// and a `git diff --stat` summary, itself cut at limit.
func (r *Repo) WritePatch(f PatchFile, from, to string, cs []Change, limit int64, note string) (PatchResult, error) {
	big, err := r.largest(cs)
	if err != nil {
		return PatchResult{}, err
	}
	if big <= bigFile {
		h := sha256.New()
		n, over, err := r.stream(io.MultiWriter(f, h), limit, "diff", "--no-renames", "--binary", from, to, "--")
		if err != nil || !over {
			return PatchResult{Bytes: n, Digest: "sha256:" + hex.EncodeToString(h.Sum(nil))}, err
		}
	}
	if err := f.Truncate(0); err != nil {
		return PatchResult{}, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return PatchResult{}, err
	}
	if _, err := io.WriteString(f, note); err != nil {
		return PatchResult{}, err
	}
	n, over, err := r.stream(f, limit, "diff", "--no-renames", "--stat=120,100", "--summary", from, to, "--")
	if over && err == nil {
		// a list of the first files, ended mid-line with no total, would
		// read as all there was
		k, werr := io.WriteString(f, "\n"+SummaryCut)
		n, err = n+int64(k), werr
	}
	h := sha256.New()
	for _, c := range cs {
		fmt.Fprintf(h, "%s %s %s %s %s\x00", c.OldMode, c.NewMode, c.OldID, c.NewID, c.Path)
	}
	return PatchResult{Summary: true, Bytes: int64(len(note)) + n, Digest: "sha256:" + hex.EncodeToString(h.Sum(nil))}, err
}

// SummaryCut ends a summary that was itself over the limit.
const SummaryCut = "# The summary is cut here, at the limit: more files changed than it names.\n"

// stream copies git's stdout into w up to limit bytes; over tells that
// there was more, and git was stopped.
func (r *Repo) stream(w io.Writer, limit int64, args ...string) (n int64, over bool, err error) {
	g := r.git()
	if err := g.check(); err != nil {
		return 0, false, err
	}
	cmd := g.command(args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return 0, false, err
	}
	if err := cmd.Start(); err != nil {
		return 0, false, err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	n, err = io.CopyN(bw, pipe, limit)
	if err == nil { // limit reached: one byte more means over
		var one [1]byte
		if k, _ := pipe.Read(one[:]); k > 0 {
			over = true
		}
	}
	if ferr := bw.Flush(); err == nil || errors.Is(err, io.EOF) {
		err = ferr
	}
	if over {
		cmd.Process.Kill()
		cmd.Wait()
		return n, true, err
	}
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return n, false, err
	}
	if werr := cmd.Wait(); werr != nil {
		return n, false, gitError(args, werr, stderr.Bytes())
	}
	return n, false, nil
}
