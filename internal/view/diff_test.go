package view

import (
	"reflect"
	"testing"
)

// git quotes a path with a byte outside ASCII, a quote or a backslash in
// a patch's headers ("a/..." "b/..."); --stat names the file as it is.
func TestStatQuotedPaths(t *testing.T) {
	patch := "diff --git a/plain b/plain\n--- a/plain\n+++ b/plain\n@@ -1 +1 @@\n-x\n+y\n" +
		"diff --git \"a/x y/z \\303\\251/f ile.txt\" \"b/x y/z \\303\\251/f ile.txt\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/x y/z \\303\\251/f ile.txt\"\n@@ -0,0 +1 @@\n+new\n" +
		"diff --git a/with space b/with space\n--- a/with space\n+++ b/with space\n@@ -1 +0,0 @@\n-gone\n" +
		"diff --git \"a/q\\\"t\" \"b/r\\\\s\"\nsimilarity index 90%\nrename from \"q\\\"t\"\nrename to \"r\\\\s\"\n" +
		"diff --git \"a/q\\\"t\" b/plain2\nsimilarity index 100%\n"
	got := Stat([]byte(patch))
	want := []FileStat{
		{Path: "plain", Added: 1, Removed: 1},
		{Path: "x y/z é/f ile.txt", Added: 1},
		{Path: "with space", Removed: 1},
		{Path: `r\s`},
		{Path: "plain2"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Stat:\n got %+v\nwant %+v", got, want)
	}
}

// A folder whose name ends in " b" puts " b/" inside the path: the header
// "diff --git a/plan b/x b/plan b/x" is split where its two equal halves
// meet, not at the first " b/" (TestStatPathHoldingSpaceB).
func TestStatPathHoldingSpaceB(t *testing.T) {
	patch := "diff --git a/plan b/notes.txt b/plan b/notes.txt\nnew file mode 100644\n--- /dev/null\n+++ b/plan b/notes.txt\n@@ -0,0 +1 @@\n+x\n" +
		"diff --git a/a b/c b/d b/a b/c b/d\nold mode 100644\nnew mode 100755\n" +
		"diff --git a/plan b/bin b/plan b/bin\nnew file mode 100644\nGIT binary patch\nliteral 1\nIcmZpW00962761SM\n\n"
	got := Stat([]byte(patch))
	want := []FileStat{
		{Path: "plan b/notes.txt", Added: 1},
		{Path: "a b/c b/d"},
		{Path: "plan b/bin", Binary: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Stat:\n got %+v\nwant %+v", got, want)
	}
}
