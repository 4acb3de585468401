package format

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/visualq/vq/api"
)

// InvokeCommand is a suggested action as a vq invoke command line that a
// POSIX shell runs as printed: string arguments as KEY=VALUE, others as
// KEY:=JSON, each shell-quoted. Keys that the pair syntax cannot carry
// (containing = or :, or looking like a flag) fall back to --args JSON.
func InvokeCommand(a api.NextAction) string {
	parts := []string{"vq", "invoke", ShellQuote(a.Tool)}
	keys := make([]string, 0, len(a.Args))
	for k := range a.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "" || strings.ContainsAny(k, "=:") || strings.HasPrefix(k, "-") {
			b, _ := json.Marshal(a.Args)
			return strings.Join(append(parts[:3], "--args", ShellQuote(string(b))), " ")
		}
	}
	for _, k := range keys {
		if s, ok := a.Args[k].(string); ok {
			parts = append(parts, ShellQuote(k+"="+s))
			continue
		}
		b, err := json.Marshal(a.Args[k])
		if err != nil {
			b = []byte(fmt.Sprint(a.Args[k]))
		}
		parts = append(parts, ShellQuote(k+":="+string(b)))
	}
	return strings.Join(parts, " ")
}

// ShellQuote quotes s for a POSIX shell. Plain words stay bare; others are
// single-quoted. A word holding characters a terminal would act on or hide
// (controls, bidi overrides) uses $'...' with escapes instead, which bash,
// zsh and ksh read back to the same bytes, so the printed line is both safe
// to display and exact when run.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if isShellSafe(s) {
		return s
	}
	if SanitizeLine(s) != s {
		return ansiCQuote(s)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func isShellSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_@%+=:,./-", c) >= 0) {
			return false
		}
	}
	return true
}

func ansiCQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for _, r := range s {
		switch {
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < ' ' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0 || isInvisible(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
