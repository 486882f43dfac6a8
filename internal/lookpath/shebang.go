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
// with CRLF line ends, on Windows or by an editor set so), or names an
// interpreter that is not there. The kernel's answer is then ENOENT, which
// every shell and exec reports as the script itself "not found". "" when
// the file starts fine, or cannot be read (the start will say why).
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
