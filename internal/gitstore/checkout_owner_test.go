package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/internal/testsupport/otheruser"
)

// loop-view checkout's own example writes to /tmp/iter3: another user who
// made that folder (0777) or a link to a folder of theirs first got the
// run's files, theirs to read. Such a folder is refused, nothing written.
func TestCheckoutIntoAnotherUsersFolder(t *testing.T) {
	for _, link := range []bool{false, true} {
		to := filepath.Join(t.TempDir(), "iter3")
		theirs := otheruser.Planted(t, to, link)
		err := (&Repo{}).Checkout("4b825dc642cb6eb9a060e54bf8d69288fbee4904", to)
		if err == nil || !strings.Contains(err.Error(), theirs+" belongs to ") {
			t.Errorf("link %v: checkout into another user's folder: %v, want a refusal naming %s", link, err, theirs)
		}
		if names, _ := os.ReadDir(theirs); len(names) != 0 {
			t.Errorf("link %v: wrote %v", link, names)
		}
	}
}
