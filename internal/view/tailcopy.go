package view

// What the tail copies out of a stream: whole lines, cut ones marked, the
// notices in them, each as an event.

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/loopkit/loopkit/internal/agent"
	"github.com/loopkit/loopkit/internal/quote"
)

// copy writes what f gained; last flushes a line without its newline.
func (t *Tail) copy(source string, f *tailFile, last bool) error {
	if t.open(f); f.f == nil {
		return nil
	}
	if fi, err := f.f.Stat(); err == nil && fi.Size() < f.off {
		f.off = 0 // a retry truncates the spool file: its output starts over
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := f.f.ReadAt(buf, f.off)
		if n > 0 {
			f.off += int64(n)
			if werr := t.write(source, f, buf[:n]); werr != nil {
				return werr
			}
		}
		if err != nil || n == 0 {
			break
		}
	}
	if last {
		return t.endLine(source, f)
	}
	return nil
}

func (t *Tail) write(source string, f *tailFile, b []byte) error {
	if t.Event == nil {
		w := t.Out
		if f.stream == "stderr" {
			w = t.Err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		return t.scanNotices(source, f, b)
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		switch {
		case f.skipping: // the rest of a line past TailLineMax: dropped
		case len(f.partial)+len(chunk) > TailLineMax:
			f.partial = append(f.partial, chunk[:TailLineMax-len(f.partial)]...)
			if err := t.event(source, f.stream, f.partial, true); err != nil {
				return err
			}
			f.partial, f.skipping = nil, true
		default:
			f.partial = append(f.partial, chunk...)
		}
		if i < 0 {
			return nil
		}
		b = b[i+1:]
		if f.skipping {
			f.skipping = false
			continue
		}
		line := f.partial
		f.partial = nil
		if err := t.event(source, f.stream, line, false); err != nil {
			return err
		}
	}
	return nil
}

// TailLineMax caps a line --json holds: a longer one is sent cut (its
// first TailLineMax bytes as text, "cut": true) and the rest skipped, so
// a 600 MB line costs no more memory than a short one.
const TailLineMax = 1 << 20

// spoolMetaMax caps a spool meta read: a few hundred bytes when real.
const spoolMetaMax = 1 << 20

func (t *Tail) endLine(source string, f *tailFile) error {
	if f.skipping {
		f.skipping = false
		return nil
	}
	if t.Event == nil || len(f.partial) == 0 {
		return nil
	}
	line := f.partial
	f.partial = nil
	return t.event(source, f.stream, line, false)
}

// noticeLineMax bounds a line scanned for a retry notice; the notices
// are short, a longer line is something else.
const noticeLineMax = 4096

// scanNotices passes the agent's complete lines to notice (text mode).
func (t *Tail) scanNotices(source string, f *tailFile, b []byte) error {
	if t.Notice == nil || source != "agent" {
		return nil
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		if len(f.scan)+len(chunk) > noticeLineMax {
			f.scan, f.long = f.scan[:0], true
		} else if !f.long {
			f.scan = append(f.scan, chunk...)
		}
		if i < 0 {
			return nil
		}
		if !f.long {
			if err := t.notice(f.scan); err != nil {
				return err
			}
		}
		f.scan, f.long = f.scan[:0], false
		b = b[i+1:]
	}
	return nil
}

// notice sends what an agent's line says of a retry, if it is a notice.
func (t *Tail) notice(line []byte) error {
	if t.Notice == nil {
		return nil
	}
	if n := agent.LiveNotice(line, time.Now()); n != nil {
		return t.Notice(n.String())
	}
	return nil
}

// event sends one line: the agent's JSON events as objects, the rest as text.
func (t *Tail) event(source, stream string, line []byte, cut bool) error {
	if err := t.event1(source, stream, line, cut); err != nil || source != "agent" || cut {
		return err
	}
	return t.notice(bytes.TrimRight(line, "\r"))
}

func (t *Tail) event1(source, stream string, line []byte, cut bool) error {
	line = bytes.TrimRight(line, "\r")
	ev := TailEvent{Source: source, Stream: stream, Cut: cut}
	trimmed := bytes.TrimSpace(line)
	if source == "agent" && stream == "stdout" && len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		ev.Event = json.RawMessage(trimmed)
	} else {
		s := string(line)
		ev.Text = &s
	}
	return t.Event(ev)
}

// Line is the event as one line of --json: UTF-8 (a byte of the agent's
// that is not is U+FFFD, as in the store's records), each C1 control and
// bidirectional override written escaped, so the line shows on a terminal
// instead of acting on it.
func (ev TailEvent) Line() ([]byte, error) {
	if !utf8.Valid(ev.Event) { // json.Valid takes such bytes inside strings
		ev.Event = bytes.ToValidUTF8(ev.Event, []byte("\uFFFD"))
	}
	line, err := json.Marshal(ev)
	return append(quote.JSON(line), '\n'), err
}
