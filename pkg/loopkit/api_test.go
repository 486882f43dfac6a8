package loopkit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopkit/loopkit/pkg/loopkit"
)

// Every type a program meets through the API (a field of a record, a
// method's argument) has a name here: a type of an internal package it
// could use but never declare (a func taking an IterationLog's Agent).
func TestEveryReachableTypeIsNamed(t *testing.T) {
	named := aliases(t)
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(ty reflect.Type, via string) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		if strings.Contains(ty.PkgPath(), "/internal/") && ty.Name() != "" && !named[ty.String()] {
			t.Errorf("%s reaches %s, which pkg/loopkit gives no name (type X = %s)", via, ty, ty)
		}
		for i := 0; i < ty.NumMethod(); i++ {
			m := ty.Method(i)
			for j := 0; j < m.Type.NumIn(); j++ {
				walk(m.Type.In(j), via+"."+m.Name+"()")
			}
			for j := 0; j < m.Type.NumOut(); j++ {
				walk(m.Type.Out(j), via+"."+m.Name+"()")
			}
		}
		switch ty.Kind() {
		case reflect.Map:
			walk(ty.Key(), via)
			walk(ty.Elem(), via)
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
			walk(ty.Elem(), via)
		case reflect.Struct:
			for i := 0; i < ty.NumField(); i++ {
				if f := ty.Field(i); f.IsExported() {
					walk(f.Type, via+"."+f.Name)
				}
			}
		}
	}
	for _, v := range []any{&loopkit.IterationLog{}, &loopkit.Run{}, &loopkit.Event{}, &loopkit.ValidationResult{}, &loopkit.Store{}} {
		walk(reflect.TypeOf(v), reflect.TypeOf(v).Elem().Name())
	}
}

// aliases are the types pkg/loopkit names by alias, as reflect writes
// them ("record.Agent").
func aliases(t *testing.T) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(pkgDir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok && ts.Assign.IsValid() {
				if sel, ok := ts.Type.(*ast.SelectorExpr); ok {
					named[sel.X.(*ast.Ident).Name+"."+sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	return named
}
