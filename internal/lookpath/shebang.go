package lookpath

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Shebang says why the system cannot start the script at path although it
// is there and executable: its #! line ends in a carriage return (saved
// with CRLF line ends, on Windows or by an editor set so), names an
// interpreter that is not there (the kernel's ENOENT, which shells and
// exec report as the script itself "not found"), or follows a byte-order
// mark (ENOEXEC: sh then runs a bash script as its own). "" when the file
// starts fine, or cannot be read (the start will say why).
func Shebang(path string) string {
	// O_NONBLOCK: a FIFO put where the script was never blocks the check
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	head := make([]byte, 256) // the kernel reads no more of a #! line
	n, _ := io.ReadFull(f, head)
	line, _, _ := bytes.Cut(head[:n], []byte{'\n'})
	if bytes.HasPrefix(line, []byte("\ufeff#!")) {
		return fmt.Sprintf("it starts with a byte-order mark (UTF-8 with BOM, as Windows editors save it), "+
			"which hides its #! line from the system, so sh runs it whatever that names: save it as UTF-8 without BOM (sed -i '1s/^\\xEF\\xBB\\xBF//' %s)", path)
	}
	if !bytes.HasPrefix(line, []byte("#!")) {
		return ""
	}
	// as the kernel splits it: the interpreter ends at a space or tab
	interp, _, _ := strings.Cut(strings.TrimLeft(string(line[2:]), " \t"), " ")
	interp, _, _ = strings.Cut(interp, "\t")
	if bytes.HasSuffix(line, []byte{'\r'}) { // its last word keeps the \r: "/bin/sh\r", or env's "python3\r"
		words := strings.FieldsFunc(string(line[2:]), func(r rune) bool { return r == ' ' || r == '\t' })
		return fmt.Sprintf("its #! line ends in a carriage return (CRLF line ends, as Windows editors save them), "+
			"so the system looks for %q: save it with LF line ends (dos2unix %s)", words[len(words)-1], path)
	}
	if !filepath.IsAbs(interp) {
		return ""
	}
	if _, err := os.Stat(interp); os.IsNotExist(err) {
		return fmt.Sprintf("its #! interpreter %s is not there: install it, or name one that is in the #! line", interp)
	}
	return ""
}
