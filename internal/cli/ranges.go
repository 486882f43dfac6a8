package cli

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	flags "github.com/jessevdk/go-flags"
)

// Numeric options carry their allowed range in a tag, `range:"MIN,MAX"`
// (either end may be empty: unbounded). The range is checked for values from
// flags, the environment and config files alike, so an absurd value (a
// keep_days that overflows into "delete everything") is a usage error
// naming where it came from, never a surprise.

// checkRanges checks every option given on the command line or through its
// environment variable, in the active command and its parents.
func checkRanges(p *flags.Parser) error {
	cmds := []*flags.Command{p.Command}
	for c := p.Command.Active; c != nil; c = c.Active {
		cmds = append(cmds, c)
	}
	for _, c := range cmds {
		if err := checkGroup(c.Group); err != nil {
			return err
		}
	}
	return nil
}

func checkGroup(g *flags.Group) error {
	for _, o := range g.Options() {
		if !o.IsSet() || o.IsSetDefault() {
			continue
		}
		if err := inRange(o.Field(), reflect.ValueOf(o.Value())); err != nil {
			name := "--" + o.LongName
			if o.EnvDefaultKey != "" {
				name += " (or $" + o.EnvDefaultKey + ")"
			}
			return fmt.Errorf("%s: %v", name, err)
		}
	}
	for _, sub := range g.Groups() {
		if err := checkGroup(sub); err != nil {
			return err
		}
	}
	return nil
}

// inRange checks v against f's range tag; fields without one pass.
func inRange(f reflect.StructField, v reflect.Value) error {
	tag, ok := f.Tag.Lookup("range")
	if !ok {
		return nil
	}
	lo, hi, _ := strings.Cut(tag, ",")
	var x float64
	var shown string
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, shown = float64(v.Int()), strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x, shown = float64(v.Uint()), strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		x, shown = v.Float(), strconv.FormatFloat(v.Float(), 'g', -1, 64)
	default:
		return nil
	}
	bad := x != x // NaN
	if lo != "" {
		if n, err := strconv.ParseFloat(lo, 64); err == nil && x < n {
			bad = true
		}
	}
	if hi != "" {
		if n, err := strconv.ParseFloat(hi, 64); err == nil && x > n {
			bad = true
		}
	}
	if !bad {
		return nil
	}
	switch {
	case lo != "" && hi != "":
		return fmt.Errorf("%s is out of range (want %s to %s)", shown, lo, hi)
	case lo != "":
		return fmt.Errorf("%s is out of range (want %s or more)", shown, lo)
	}
	return fmt.Errorf("%s is out of range (want at most %s)", shown, hi)
}
