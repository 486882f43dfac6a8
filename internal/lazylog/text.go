package lazylog

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The line is charmbracelet/log v1's text format with its default styles
// (logger.go's handle, text.go's textFormatter, styles.go), rendered as
// lipgloss renders them for the Ascii or ANSI256 colour profile;
// TestSameAsCharmLog compares the two line by line. Its keys and prefix
// are the program's own words, one line each (a styled text of several
// lines lipgloss would also pad to its widest line).

// The default styles' SGR parameters: faint keys, separators and caller,
// bold faint prefix, bold coloured levels cut to four letters.
const (
	faint      = "2"
	boldFaint  = "1;2"
	separator  = "="
	indentSep  = "  │ "
	tabSpaces  = "    " // lipgloss's default tab width
	missingVal = "missing value"
)

// levelStyle is a level's label and its colour (ANSI 256).
func levelStyle(l Level) (label, sgr string, ok bool) {
	switch l {
	case DebugLevel:
		return "DEBU", "1;38;5;63", true
	case InfoLevel:
		return "INFO", "1;38;5;86", true
	case WarnLevel:
		return "WARN", "1;38;5;192", true
	case ErrorLevel:
		return "ERRO", "1;38;5;204", true
	}
	return "", "", false
}

// levelField is the line's own level in its fields: a Level a caller
// passes under "level" is a value like any other, which the format (as
// charmbracelet/log did with all but its own level type) leaves out.
type levelField Level

// errMissingValue stands for the value of a key given none.
type errMissingValue struct{}

func (errMissingValue) Error() string { return missingVal }

// The keys the format treats as its own fields wherever they appear.
const (
	timestampKey = "time"
	messageKey   = "msg"
	levelKey     = "level"
	callerKey    = "caller"
	prefixKey    = "prefix"
)

// plain is lipgloss's rendering of an unstyled text: tabs as spaces.
func plain(s string) string { return strings.ReplaceAll(s, "\t", tabSpaces) }

// styled is s rendered in a style with SGR parameters sgr.
func (z *Lazy) styled(sgr, s string) string {
	s = strings.ReplaceAll(plain(s), "\r\n", "\n")
	if !z.ansi {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "\x1b[" + sgr + "m" + l + "\x1b[0m"
	}
	return strings.Join(lines, "\n")
}

func (z *Lazy) format(l Level, msg any, keyvals []any) {
	kvs := make([]any, 0, 6+len(keyvals)+1)
	kvs = append(kvs, levelKey, levelField(l))
	if z.prefix != "" {
		kvs = append(kvs, prefixKey, z.prefix)
	}
	if msg != nil {
		if m := fmt.Sprint(msg); m != "" {
			kvs = append(kvs, messageKey, m)
		}
	}
	kvs = append(kvs, keyvals...)
	if len(keyvals)%2 != 0 {
		kvs = append(kvs, errMissingValue{})
	}
	b := &z.b
	space := func(first bool) {
		if !first {
			b.WriteByte(' ')
		}
	}
	for i := 0; i < len(kvs); i += 2 {
		first, more := i == 0, i < len(kvs)-2
		switch kvs[i] {
		case timestampKey:
			if t, ok := kvs[i+1].(time.Time); ok {
				space(first)
				b.WriteString(plain(t.Format("2006/01/02 15:04:05")))
			}
		case levelKey:
			if lv, ok := kvs[i+1].(levelField); ok {
				if label, sgr, ok := levelStyle(Level(lv)); ok {
					space(first)
					if z.ansi {
						b.WriteString("\x1b[" + sgr + "m" + label + "\x1b[0m")
					} else {
						b.WriteString(label)
					}
				}
			}
		case callerKey:
			if c, ok := kvs[i+1].(string); ok {
				space(first)
				b.WriteString(z.styled(faint, "<"+c+">"))
			}
		case prefixKey:
			if p, ok := kvs[i+1].(string); ok {
				space(first)
				b.WriteString(z.styled(boldFaint, p+":"))
			}
		case messageKey:
			if m := kvs[i+1]; m != nil {
				space(first)
				b.WriteString(plain(fmt.Sprint(m)))
			}
		default:
			z.keyValue(first, more, kvs[i], kvs[i+1])
		}
	}
	b.WriteByte('\n')
}

// keyValue writes key=value; a value of several lines goes below its key,
// each line indented.
func (z *Lazy) keyValue(first, more bool, k, v any) {
	b := &z.b
	key := fmt.Sprint(k)
	val := fmt.Sprintf("%+v", v)
	raw := val == ""
	if raw {
		val = `""`
	}
	if key == "" {
		return
	}
	key, sep := z.styled(faint, key), z.styled(faint, separator)
	switch {
	case strings.Contains(val, "\n"):
		b.WriteString("\n  " + key + sep + "\n")
		indent := z.styled(faint, indentSep)
		for {
			nl := strings.IndexByte(val, '\n')
			if nl < 0 {
				if val != "" {
					b.WriteString(indent + plain(escape(val, false)))
					if more {
						b.WriteByte('\n')
					}
				}
				return
			}
			b.WriteString(indent + plain(escape(val[:nl], false)) + "\n")
			val = val[nl+1:]
		}
	case !raw && needsQuoting(val):
		if !first {
			b.WriteByte(' ')
		}
		b.WriteString(key + sep + plain(`"`+escape(val, true)+`"`))
	default:
		if !first {
			b.WriteByte(' ')
		}
		b.WriteString(key + sep + plain(val))
	}
}

// needsQuoting reports a value with a space, a control, '"' or '=' in it,
// or bytes that are not UTF-8.
func needsQuoting(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c == '"' || c == '=' || unicode.IsSpace(rune(c)) || !unicode.IsPrint(rune(c)) {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// escape writes the unprintable runes of s (and '"' when quoting) as Go
// escapes them; s without any is returned as it is.
func escape(s string, quotes bool) string {
	clean := true
	for _, r := range s {
		if !unicode.IsPrint(r) || r == '"' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	for _, r := range s {
		switch {
		case quotes && r == '"':
			b.WriteString(`\"`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r == '\a':
			b.WriteString(`\a`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\v':
			b.WriteString(`\v`)
		case r < ' ':
			b.WriteString(`\x`)
			b.WriteByte(hex[byte(r)>>4])
			b.WriteByte(hex[byte(r)&0xF])
		default:
			if !utf8.ValidRune(r) {
				r = 0xFFFD
			}
			if r < 0x10000 {
				b.WriteString(`\u`)
				for s := 12; s >= 0; s -= 4 {
					b.WriteByte(hex[r>>uint(s)&0xF])
				}
			} else {
				b.WriteString(`\U`)
				for s := 28; s >= 0; s -= 4 {
					b.WriteByte(hex[r>>uint(s)&0xF])
				}
			}
		}
	}
	return b.String()
}
