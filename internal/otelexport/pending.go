package otelexport

import "go.opentelemetry.io/collector/pdata/ptrace"

// pending holds the spans not sent yet, as requests of at most batchSpans
// spans under the one resource and scope.
type pending struct {
	tmpl    ptrace.Traces // the resource and scope, no spans
	batches []batch
	n       int
}

// batch is one request, and the marks reached once it is delivered
// (nil while no record of a run ends in it).
type batch struct {
	td   ptrace.Traces
	upTo *RunMarks
}

// recordRoom is the spans a record is expected to take at most: a batch
// with less room left is closed before the next record, so that records
// end with batches and a failed delivery's checkpoint can name the
// records the batches before it delivered.
const recordRoom = 64

// begin is called before the spans of one record are made.
func (p *pending) begin() {
	if last := len(p.batches) - 1; last >= 0 && p.spans(last).Len() > batchSpans-recordRoom {
		p.open()
	}
}

// reached notes that the spans made so far take a run to marks m.
func (p *pending) reached(m RunMarks) {
	if last := len(p.batches) - 1; last >= 0 {
		p.batches[last].upTo = &m
	}
}

// span appends an empty span to the last batch, opening one when full.
func (p *pending) span() ptrace.Span {
	if last := len(p.batches) - 1; last < 0 || p.spans(last).Len() >= batchSpans {
		p.open()
	}
	p.n++
	return p.spans(len(p.batches) - 1).AppendEmpty()
}

func (p *pending) open() {
	td := ptrace.NewTraces()
	p.tmpl.CopyTo(td)
	p.batches = append(p.batches, batch{td: td})
}

func (p *pending) spans(i int) ptrace.SpanSlice {
	return p.batches[i].td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
}

// drop forgets the spans not sent: their marks did not move, so the next
// StoreRun maps them again from the store.
func (p *pending) drop() {
	p.batches, p.n = nil, 0
}

// halve splits the first batch in two, the marks with the second.
func (p *pending) halve() {
	spans := p.spans(0)
	p.open()
	second := p.spans(len(p.batches) - 1)
	for i := spans.Len() / 2; i < spans.Len(); i++ {
		spans.At(i).CopyTo(second.AppendEmpty())
	}
	half := spans.Len() / 2
	i := 0
	spans.RemoveIf(func(ptrace.Span) bool { i++; return i > half })
	last := len(p.batches) - 1
	b := p.batches[last]
	b.upTo, p.batches[0].upTo = p.batches[0].upTo, nil
	copy(p.batches[2:], p.batches[1:last])
	p.batches[1] = b
}
