package recorder

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/loopkit/loopkit/internal/record"
)

// spoolRef is a file a record names: which field, the path, and for
// streams the size the writer counted (-1: unknown).
type spoolRef struct {
	field string
	line  int
	path  *string
	dir   bool // a directory (a step's base objects), not a stream
}

func spoolRefs(in *record.Input) []spoolRef {
	var refs []spoolRef
	if v := in.Validation; v != nil {
		refs = append(refs, spoolRef{"stdout_file", in.ValidationLine, v.StdoutFile, false},
			spoolRef{"stderr_file", in.ValidationLine, v.StderrFile, false})
	}
	for _, s := range []struct {
		step *record.Step
		line int
	}{{in.Step, in.StepLine}, {in.Review, in.ReviewLine}} {
		if s.step != nil {
			refs = append(refs, spoolRef{"stdout_file", s.line, s.step.StdoutFile, false},
				spoolRef{"stderr_file", s.line, s.step.StderrFile, false},
				spoolRef{"prompt_file", s.line, s.step.PromptFile, false},
				spoolRef{"git_objects", s.line, s.step.GitObjects, true})
		}
	}
	return refs
}

// CheckInput refuses a record naming a file loop-record must not read:
// anything but a regular file (a directory for git_objects) directly in
// the store's spool/ — /dev/null, a FIFO, /proc/self/environ, a symlink.
// It runs before anything is written, so bad input leaves the store as
// it was. A named file that is gone is allowed (its inline text is kept).
func (r *Recorder) CheckInput(in *record.Input) error {
	for _, ref := range spoolRefs(in) {
		if ref.path == nil || *ref.path == "" {
			continue
		}
		if err := r.checkSpoolFile(*ref.path, ref.dir); err != nil {
			return &record.InputError{Line: ref.line, Field: ref.field, Msg: err.Error()}
		}
	}
	return nil
}

func (r *Recorder) checkSpoolFile(p string, dir bool) error {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p {
		return fmt.Errorf("%q is not a clean absolute path in the store's spool/", p)
	}
	if !r.inSpool(p) {
		return fmt.Errorf("%s is outside the store's spool/ (%s)", p, r.St.SpoolDir())
	}
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case dir && !fi.IsDir():
		return fmt.Errorf("%s is not a directory", p)
	case !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%s)", p, fi.Mode().Type())
	}
	return nil
}

// inSpool: p names an entry directly in the store's spool/ directory (the
// same directory, however the store's path is spelled).
func (r *Recorder) inSpool(p string) bool {
	name := filepath.Base(p)
	if name == "." || name == ".." || name == "/" {
		return false
	}
	rel, err := filepath.Rel(r.St.SpoolDir(), p)
	if err == nil && filepath.IsLocal(rel) && filepath.Dir(rel) == "." {
		return true
	}
	a, err1 := os.Stat(filepath.Dir(p))
	b, err2 := os.Stat(r.St.SpoolDir())
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// place puts a stream into the folder: the spool file when there is one,
// else the inline text. The spool file is hard-linked (O(1) whatever its
// size) unless a writer may have survived the command (stray) or the file
// has grown past the size the record gives: then exactly want bytes are
// copied, so the folder holds what the record describes.
func (r *Recorder) place(src *string, want int64, stray bool, inline, dst string) error {
	if src == nil || *src == "" {
		return writeSynced(dst, []byte(inline))
	}
	f, err := os.OpenFile(*src, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		r.Log.Warn("spool file gone, keeping the inline text", "file", *src)
		return writeSynced(dst, []byte(inline))
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", *src)
	}
	if !stray && (want <= 0 || fi.Size() <= want) {
		if err := os.Link(*src, dst); err == nil {
			if lfi, err := os.Lstat(dst); err != nil || !os.SameFile(fi, lfi) {
				os.Remove(dst) // replaced between open and link
				return fmt.Errorf("%s changed while it was recorded", *src)
			}
			return syncFile(dst)
		}
	}
	n := fi.Size()
	if want >= 0 && (stray || want > 0) {
		n = want
	}
	if fi.Size() < n {
		return fmt.Errorf("%s holds %d bytes, fewer than the %d its record gives", *src, fi.Size(), n)
	}
	return copyN(f, dst, n)
}

// copyN copies the first n bytes of src (copy_file_range where the kernel
// has it).
func copyN(src *os.File, dst string, n int64) error {
	out, err := openOwn(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return err
	}
	// one err throughout: a failed seek or copy must not end as a 0-byte "success"
	if _, err = src.Seek(0, io.SeekStart); err == nil {
		_, err = io.CopyN(out, src, n)
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
