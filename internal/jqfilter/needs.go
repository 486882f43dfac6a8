package jqfilter

import (
	"strings"

	"github.com/itchyny/gojq"
)

// analysis walks a parsed expression to find the top-level fields it reads.
// "rooted" means the input at this point may be the record itself; a query
// "emits the root" when one of its outputs may be the record. Whatever the
// walk does not understand reads the whole record (all), so it errs toward
// decoding too much, never too little.
type analysis struct {
	fields map[string]bool
	all    bool
}

// pure are builtins that do not look into their input beyond its truth or
// type (the record is always a truthy object), so the record may flow into
// them without being decoded.
var pure = map[string]bool{"empty": true, "not": true, "type": true, "now": true, "env": true,
	"builtins": true, "input_line_number": true, "halt": true, "true": true, "false": true, "null": true}

// consume marks the whole record as needed when a value that may be the
// record is used as data (compared, added, printed inside something).
func (a *analysis) consume(emits bool) {
	if emits {
		a.all = true
	}
}

func (a *analysis) query(q *gojq.Query, rooted bool) bool {
	if q == nil {
		return false
	}
	if len(q.FuncDefs) > 0 || len(q.Imports) > 0 || q.Meta != nil {
		a.all = true // user functions run on the record: too much to follow
		return rooted
	}
	if q.Term != nil {
		return a.term(q.Term, rooted)
	}
	switch q.Op {
	case gojq.OpPipe:
		if len(q.Patterns) > 0 { // L as $x | R: $x is L's value, R sees the same input
			a.consume(a.query(q.Left, rooted))
			if rooted && patternsQuery(q.Patterns) {
				a.all = true
			}
			return a.query(q.Right, rooted)
		}
		return a.query(q.Right, a.query(q.Left, rooted))
	case gojq.OpComma, gojq.OpAlt:
		l := a.query(q.Left, rooted)
		return a.query(q.Right, rooted) || l
	case gojq.OpAnd, gojq.OpOr:
		a.query(q.Left, rooted)
		a.query(q.Right, rooted)
		return false
	case gojq.OpAdd, gojq.OpSub, gojq.OpMul, gojq.OpDiv, gojq.OpMod,
		gojq.OpEq, gojq.OpNe, gojq.OpGt, gojq.OpLt, gojq.OpGe, gojq.OpLe:
		a.consume(a.query(q.Left, rooted))
		a.consume(a.query(q.Right, rooted))
		return false
	}
	// assignments and updates work on paths of the input
	if rooted {
		a.all = true
	}
	a.consume(a.query(q.Left, rooted))
	a.consume(a.query(q.Right, rooted))
	return false
}

func patternsQuery(ps []*gojq.Pattern) bool {
	for _, p := range ps {
		for _, o := range p.Object {
			if o.KeyQuery != nil || (o.KeyString != nil && len(o.KeyString.Queries) > 0) {
				return true
			}
			if o.Val != nil && patternsQuery([]*gojq.Pattern{o.Val}) {
				return true
			}
		}
		if patternsQuery(p.Array) {
			return true
		}
	}
	return false
}

// term returns whether the term may emit the record.
func (a *analysis) term(t *gojq.Term, rooted bool) bool {
	emits := false
	switch t.Type {
	case gojq.TermTypeIdentity:
		emits = rooted
	case gojq.TermTypeRecurse:
		a.consume(rooted)
	case gojq.TermTypeNull, gojq.TermTypeTrue, gojq.TermTypeFalse, gojq.TermTypeNumber, gojq.TermTypeBreak:
	case gojq.TermTypeIndex:
		a.index(t.Index, rooted, rooted)
	case gojq.TermTypeFunc:
		emits = a.fn(t.Func, rooted)
	case gojq.TermTypeObject:
		a.object(t.Object, rooted)
	case gojq.TermTypeArray:
		if t.Array != nil {
			a.consume(a.query(t.Array.Query, rooted))
		}
	case gojq.TermTypeUnary:
		a.consume(a.term(t.Unary.Term, rooted))
	case gojq.TermTypeFormat:
		if t.Str != nil {
			a.str(t.Str, rooted)
		} else {
			a.consume(rooted) // @base64 alone formats its input
		}
	case gojq.TermTypeString:
		a.str(t.Str, rooted)
	case gojq.TermTypeIf:
		emits = a.ifTerm(t.If, rooted)
	case gojq.TermTypeTry:
		emits = a.query(t.Try.Body, rooted)
		if t.Try.Catch != nil {
			emits = a.query(t.Try.Catch, false) || emits
		}
	case gojq.TermTypeReduce:
		a.consume(a.query(t.Reduce.Query, rooted))
		a.consume(a.query(t.Reduce.Start, rooted))
		a.query(t.Reduce.Update, false)
	case gojq.TermTypeForeach:
		a.consume(a.query(t.Foreach.Query, rooted))
		a.consume(a.query(t.Foreach.Start, rooted))
		a.query(t.Foreach.Update, false)
		a.query(t.Foreach.Extract, false)
	case gojq.TermTypeLabel:
		emits = a.query(t.Label.Body, rooted)
	case gojq.TermTypeQuery:
		emits = a.query(t.Query, rooted)
	default:
		a.consume(rooted)
	}
	for _, s := range t.SuffixList {
		switch {
		case s.Index != nil:
			a.index(s.Index, emits, rooted)
			emits = false
		case s.Iter:
			a.consume(emits)
			emits = false
		}
	}
	return emits
}

// index handles .name, ."name", .[expr] and slices applied to a value that
// is the record when onRecord; expressions inside brackets see the input of
// the whole term (rooted).
func (a *analysis) index(x *gojq.Index, onRecord, rooted bool) {
	if name, ok := constName(x); ok {
		if onRecord {
			a.fields[name] = true
		}
		return
	}
	a.consume(onRecord)
	if x.Str != nil {
		a.str(x.Str, rooted)
	}
	a.consume(a.query(x.Start, rooted))
	a.consume(a.query(x.End, rooted))
}

func constName(x *gojq.Index) (string, bool) {
	if x.IsSlice || x.Start != nil || x.End != nil {
		return "", false
	}
	if x.Name != "" {
		return x.Name, true
	}
	if x.Str != nil && len(x.Str.Queries) == 0 {
		return x.Str.Str, true
	}
	return "", false
}

func (a *analysis) fn(f *gojq.Func, rooted bool) bool {
	if strings.HasPrefix(f.Name, "$") {
		return false // a variable; a variable bound to the record was consumed
	}
	if f.Name == "select" && len(f.Args) == 1 {
		a.query(f.Args[0], rooted) // only its truth matters
		return rooted
	}
	switch {
	case (f.Name == "first" && len(f.Args) == 1) || (f.Name == "limit" && len(f.Args) == 2):
		if len(f.Args) == 2 {
			a.consume(a.query(f.Args[0], rooted))
		}
		return a.query(f.Args[len(f.Args)-1], rooted)
	case f.Name == "isempty" && len(f.Args) == 1:
		a.query(f.Args[0], rooted)
		return false
	case (f.Name == "any" || f.Name == "all") && len(f.Args) == 2:
		a.query(f.Args[1], a.query(f.Args[0], rooted))
		return false
	}
	if !pure[f.Name] {
		a.consume(rooted)
	}
	for _, arg := range f.Args {
		a.consume(a.query(arg, rooted))
	}
	return false
}

func (a *analysis) object(o *gojq.Object, rooted bool) {
	for _, kv := range o.KeyVals {
		switch {
		case kv.KeyQuery != nil:
			a.consume(a.query(kv.KeyQuery, rooted))
		case kv.KeyString != nil:
			a.str(kv.KeyString, rooted)
		}
		if kv.Val != nil {
			a.consume(a.query(kv.Val, rooted))
			continue
		}
		// {name} and {"name"} take the field of the same name; {$x} a variable
		switch {
		case strings.HasPrefix(kv.Key, "$"):
		case kv.Key != "":
			if rooted {
				a.fields[kv.Key] = true
			}
		case kv.KeyString != nil && len(kv.KeyString.Queries) == 0:
			if rooted {
				a.fields[kv.KeyString.Str] = true
			}
		default:
			a.consume(rooted)
		}
	}
}

func (a *analysis) str(s *gojq.String, rooted bool) {
	for _, q := range s.Queries {
		a.consume(a.query(q, rooted))
	}
}

func (a *analysis) ifTerm(x *gojq.If, rooted bool) bool {
	a.query(x.Cond, rooted)
	emits := a.query(x.Then, rooted)
	for _, e := range x.Elif {
		a.query(e.Cond, rooted)
		emits = a.query(e.Then, rooted) || emits
	}
	if x.Else == nil {
		return emits || rooted // if without else passes its input through
	}
	return a.query(x.Else, rooted) || emits
}
