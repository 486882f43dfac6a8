// Package lazyre is a regular expression compiled on first use. A
// package-level regexp.MustCompile runs at every start of every command
// that links the package, used or not: the driver starts three commands
// an iteration, and compiling their patterns was most of their start-up.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp compiles its expression the first time it is used, then behaves
// as the *regexp.Regexp (the methods loopkit uses are forwarded).
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// New returns the pattern, not yet compiled. An invalid expression panics
// at first use, as regexp.MustCompile would at start (tests use each).
func New(expr string) *Regexp { return &Regexp{expr: expr} }

// Get is the compiled expression.
func (l *Regexp) Get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

func (l *Regexp) String() string                         { return l.expr }
func (l *Regexp) MatchString(s string) bool              { return l.Get().MatchString(s) }
func (l *Regexp) Match(b []byte) bool                    { return l.Get().Match(b) }
func (l *Regexp) FindString(s string) string             { return l.Get().FindString(s) }
func (l *Regexp) FindStringIndex(s string) []int         { return l.Get().FindStringIndex(s) }
func (l *Regexp) FindStringSubmatch(s string) []string   { return l.Get().FindStringSubmatch(s) }
func (l *Regexp) FindStringSubmatchIndex(s string) []int { return l.Get().FindStringSubmatchIndex(s) }
func (l *Regexp) FindAllString(s string, n int) []string {
	return l.Get().FindAllString(s, n)
}
func (l *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return l.Get().FindAllStringIndex(s, n)
}
func (l *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.Get().FindAllStringSubmatch(s, n)
}
func (l *Regexp) ReplaceAllString(s, repl string) string { return l.Get().ReplaceAllString(s, repl) }
func (l *Regexp) ReplaceAllLiteralString(s, repl string) string {
	return l.Get().ReplaceAllLiteralString(s, repl)
}
func (l *Regexp) ReplaceAllStringFunc(s string, f func(string) string) string {
	return l.Get().ReplaceAllStringFunc(s, f)
}
func (l *Regexp) FindSubmatch(b []byte) [][]byte { return l.Get().FindSubmatch(b) }
func (l *Regexp) Split(s string, n int) []string { return l.Get().Split(s, n) }
