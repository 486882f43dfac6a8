package otelexport

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// secretPatterns match the common shapes of credentials: provider API
// keys, GitHub and Slack tokens, AWS access keys, bearer tokens, JWTs,
// private key blocks and NAME=value assignments of secret-looking names.
var secretPatterns = []string{
	// a provider's key prefix is enough: a key cut short (a tool summary
	// ends at 200 characters) is still a secret
	`\b(?:sk-ant-|sk-proj-)[A-Za-z0-9_\-]*`,
	`sk-[A-Za-z0-9_\-]{16,}`,
	`gh[pousr]_[A-Za-z0-9]{20,}`,
	`github_pat_[A-Za-z0-9_]{20,}`,
	`xox[abprs]-[A-Za-z0-9\-]{10,}`,
	`AKIA[0-9A-Z]{16}`,
	`AIza[0-9A-Za-z_\-]{35}`,
	// the same prefixes cut at the end of the text
	`\b(?:sk-|gh[pousr]_|github_pat_|xox[abprs]-|AKIA|AIza)[A-Za-z0-9_\-]{3,}(?:…|\.\.\.)?\z`,
	`(?i)bearer\s+[A-Za-z0-9._~+/\-]{12,}=*`,
	`eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`,
	// a private key block, or what is left of one cut before its end (to
	// the end of the text) or after its start (base64 lines then the end)
	`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\z)`,
	`(?:[A-Za-z0-9+/=]{16,}\s*)+-----END [A-Z ]*PRIVATE KEY-----`,
	// NAME=value, NAME: value and JSON/YAML "name": "value" of a
	// secret-looking name; a quoted value is taken whole, spaces and all
	`(?i)["']?\b[A-Z0-9_\-]*(?:token|secret|password|passwd|passphrase|api_?key|apikey|private_?key|access_?key|credentials?|authorization)[A-Z0-9_\-]*["']?\s*[=:]\s*(?:"(?:[^"\\]|\\.)*"?|'[^']*'?|[^\s,}]+)`,
}

// hints are, for each of secretPatterns in order, words one of which a
// match must hold (lower case; nil: always tried). Most texts sent hold
// none, and trying twelve patterns on every attribute cost most of an
// export's CPU.
var hints = [][]string{
	{"sk-"}, {"sk-"}, {"gh"}, {"github_pat_"}, {"xox"}, {"akia"}, {"aiza"},
	{"sk-", "gh", "github_pat_", "xox", "akia", "aiza"},
	{"bearer"}, {"eyj"}, {"-----begin"}, {"-----end"},
	{"token", "secret", "pass", "api", "private", "access", "credential", "authorization"},
}

// Content is the policy for content that leaves the machine: it is sent
// only when the user asks (--include-content), with secrets replaced.
type Content struct {
	patterns []*regexp.Regexp
	hints    [][]string // per pattern; the --redact ones have none
}

// NewContent compiles the default secret patterns plus extra ones.
func NewContent(extra []string) (*Content, error) {
	c := &Content{}
	for i, p := range append(append([]string{}, secretPatterns...), extra...) {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, err
		}
		c.patterns = append(c.patterns, re)
		var h []string
		if i < len(hints) {
			h = hints[i]
		}
		c.hints = append(c.hints, h)
	}
	return c, nil
}

// defaultRedactor is compiled on first use, not at start: most commands
// that link this package never redact.
var defaultRedactor = sync.OnceValue(func() *Content {
	c, _ := NewContent(nil)
	return c
})

// Redacted replaces each match of a secret pattern.
const Redacted = "[REDACTED]"

// Redact returns s with every secret replaced and invalid UTF-8 made valid
// (attribute values must be valid strings).
func (c *Content) Redact(s string) string {
	// Hints are checked on ASCII text only: (?i) folds some other
	// letters into ASCII ones (the Kelvin sign into k).
	lower := ""
	ascii := isASCII(s)
	if ascii {
		lower = strings.ToLower(s)
	}
	for i, re := range c.patterns {
		if ascii && c.hints[i] != nil && !containsAny(lower, c.hints[i]) {
			continue
		}
		s = re.ReplaceAllLiteralString(s, Redacted)
		if ascii {
			lower = strings.ToLower(s) // a replacement can make a later match
		}
	}
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	return s
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
