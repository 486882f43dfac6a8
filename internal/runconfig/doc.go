package runconfig

import (
	"reflect"
	"sort"
	"strings"
)

// DocStart and DocEnd enclose the table DocTable writes in docs/cli.md;
// TestCLIDocSettings keeps that copy equal to the schema.
const (
	DocStart = "<!-- settings: written from internal/runconfig by `go test ./internal/runconfig -run TestCLIDocSettings -update` -->"
	DocEnd   = "<!-- end of settings -->"
)

// DocTable is every setting a person can give, as a markdown table: flag,
// environment variable, config key (older names after it), default, the
// accepted form and the help line; then the keys one command reads for
// itself. The help, the man page and this table are all read from the
// schema's tags.
func DocTable() string {
	var b strings.Builder
	b.WriteString("| flag | variable | config key | default | values | meaning |\n|---|---|---|---|---|---|\n")
	code := func(s string) string {
		if s == "" {
			return ""
		}
		return "`" + s + "`"
	}
	sc := table()
	for i := range sc.fields {
		f := &sc.fields[i]
		if f.State || (f.Flag == "" && f.Env == "" && f.Config == "") {
			continue
		}
		flag := ""
		if f.Flag != "" {
			flag = strings.TrimSpace("--" + f.Flag + " " + strings.Trim(f.Arg, "'"))
		}
		conf := code(f.Config)
		for _, a := range f.Aliases {
			conf += " (or " + code(a) + ")"
		}
		cells := []string{code(flag), code(f.Env), conf, code(f.Default), f.Form(), f.Doc()}
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	var keys []string
	for f := range reflect.TypeFor[Tools]().Fields() {
		keys = append(keys, "- "+code(f.Tag.Get("config"))+": "+f.Tag.Get("for")+"\n")
	}
	sort.Strings(keys)
	b.WriteString("\nConfig keys one command reads for itself, and the flag they stand for:\n\n" +
		strings.Join(keys, ""))
	return b.String()
}
