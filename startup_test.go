package loopkit_test

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestNoCompileAtStart: a package-level regexp.MustCompile runs at every
// start of every command linking the package, and the driver starts three
// commands an iteration; compiling their patterns was most of a command's
// start-up (docs/benchmarks.md, "Starting a command"). Patterns outside
// tests are lazyre.New, compiled on first use.
func TestNoCompileAtStart(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			ast.Inspect(g, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					return false // compiled when called, not at start
				}
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "regexp" && strings.HasPrefix(sel.Sel.Name, "MustCompile") {
						t.Errorf("%s: a package-level regexp.%s runs at every start: use lazyre.New", fset.Position(call.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// cheapAtStart are the calls a package-level variable may make: each
// builds a value that does its work on first use (or an error value).
var cheapAtStart = map[string]bool{
	"errors.New": true, "fmt.Errorf": true, "lazyre.New": true, "lazyRegexp": true,
	"sync.OnceValue": true, "sync.OnceValues": true, "sync.OnceFunc": true, "reflect.TypeFor": true,
}

// workAtStartAllowed are the package-level values that do some work at
// start, and why they may.
var workAtStartAllowed = map[string]string{
	"internal/recorder/trees.go": "one closed channel",
	"internal/proc/signals.go":   "the signals ignored at start: a Notify hides them later",
	"internal/tui/render.go":     "loop-tui's styles: the full-screen view draws with them at once",
}

// TestNoWorkAtStart: what a package does before main every command
// linking it pays at every start, and the driver starts three commands an
// iteration (docs/benchmarks.md, "Starting a command"). Outside tests no
// package has a func init, and package-level variables call nothing but
// the constructors of lazy values (cheapAtStart); tables are literals.
func TestNoWorkAtStart(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (d.Name() == "testdata" || d.Name() == "examples" || d.Name() == "testsupport" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || workAtStartAllowed[path] != "" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				t.Errorf("%s: a func init runs at every start: build what it builds on first use (sync.OnceValue)", fset.Position(fn.Pos()))
			}
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			ast.Inspect(g, func(n ast.Node) bool {
				if _, ok := n.(*ast.FuncLit); ok {
					return false // runs when called
				}
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				fun := call.Fun
				if ix, ok := fun.(*ast.IndexExpr); ok {
					fun = ix.X // reflect.TypeFor[T]
				}
				var name string
				switch f := fun.(type) {
				case *ast.ArrayType:
					return true // a conversion, []byte("...")
				case *ast.Ident:
					name = f.Name
				case *ast.SelectorExpr:
					if x, ok := f.X.(*ast.Ident); ok {
						name = x.Name + "." + f.Sel.Name
					}
				}
				if !cheapAtStart[name] {
					t.Errorf("%s: a package-level variable calls %s at every start: build it on first use (sync.OnceValue)", fset.Position(call.Pos()), cmpOr(name, "a function"))
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// initAllowed are the packages the driver's commands link that allocate
// more than initBound at start, and why: none of them is loopkit's.
var initAllowed = map[string]string{
	"unicode":                                "regexp's tables",
	"compress/flate":                         "the store's git objects are zlib",
	"github.com/charmbracelet/x/ansi":        "charmbracelet/log's terminal stack (lipgloss), and loop-view's columns",
	"github.com/charmbracelet/x/ansi/parser": "charmbracelet/log's terminal stack (lipgloss), and loop-view's columns",
	"mvdan.cc/sh/v3/fileutil":                "loop-drive's check of a new run's validation",
	"github.com/itchyny/gojq":                "loop-view's --where and --jq filters",
	"html/template":                          "loop-view's HTML report",
}

// initBound is the most a package may allocate before main (bytes).
const initBound = 4 << 10

var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestInitTrace: the packages the commands make build builds link
// allocate at most initBound each at start (GODEBUG=inittrace=1, which
// counts allocations, not time: the same on any machine), but for the
// few in initAllowed. A new dependency with tables built at init, or a
// loopkit package building one, fails here.
func TestInitTrace(t *testing.T) {
	t.Parallel()
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^CMDS +:= (.+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("no CMDS in the Makefile")
	}
	args := []string{"list", "-deps"}
	for _, c := range strings.Fields(string(m[1])) {
		args = append(args, "./cmd/"+c)
	}
	list := exec.Command("go", args...)
	list.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	linked := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		linked[p] = true
	}
	// The test binary is every command (testscript): its package
	// initialisation is theirs, package by package.
	cmd := exec.Command("loop-step", "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var trace bytes.Buffer
	cmd.Stderr = &trace
	if err := cmd.Run(); err != nil {
		t.Fatalf("loop-step --version: %v\n%s", err, trace.Bytes())
	}
	seen := 0
	sc := bufio.NewScanner(&trace)
	for sc.Scan() {
		f := initLine.FindStringSubmatch(sc.Text())
		if f == nil || !linked[f[1]] {
			continue
		}
		seen++
		n, _ := strconv.Atoi(f[2])
		if n > initBound && initAllowed[f[1]] == "" {
			t.Errorf("%s allocates %d bytes (%s allocations) at every start of a command, over %d: build it on first use", f[1], n, f[3], initBound)
		}
	}
	if seen < 20 {
		t.Fatalf("inittrace shows %d of the commands' packages:\n%s", seen, trace.Bytes())
	}
	for p := range initAllowed {
		if !linked[p] {
			t.Errorf("initAllowed names %s, which no command links any more", p)
		}
	}
}
