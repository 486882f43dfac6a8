package quote

import (
	"strconv"
	"strings"
)

// DiffPath is the b/ side of git's "diff --git a/x b/x" header line
// (paths with spaces kept). git quotes a side holding a byte outside
// ASCII, a quote or a backslash ("a/x" "b/x", C escapes): it is unquoted.
// Unrenamed, both sides name one path, so the header splits at its middle:
// a path holding " b/" (a folder "plan b") cannot fool it.
func DiffPath(line string) string {
	rest := strings.TrimPrefix(line, "diff --git ")
	if strings.HasSuffix(rest, `"`) {
		if i := strings.LastIndex(rest, ` "b/`); i >= 0 {
			if p, err := strconv.Unquote(rest[i+1:]); err == nil {
				return strings.TrimPrefix(p, "b/")
			}
		}
	}
	if strings.HasPrefix(rest, `"`) { // a quoted a/ side, a plain b/ side
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\\' {
				i++
			} else if rest[i] == '"' {
				return strings.TrimPrefix(strings.TrimPrefix(rest[i+1:], " "), "b/")
			}
		}
	}
	if n := len(rest) - 5; n > 0 && n%2 == 0 && strings.HasPrefix(rest, "a/") &&
		rest[2+n/2:5+n/2] == " b/" && rest[2:2+n/2] == rest[5+n/2:] {
		return rest[5+n/2:]
	}
	if i := strings.Index(rest, " b/"); i >= 0 && strings.HasPrefix(rest, "a/") {
		return rest[i+3:]
	}
	return rest
}
