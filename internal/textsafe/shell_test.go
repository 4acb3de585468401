package textsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzShellQuote(f *testing.F) {
	for _, s := range []string{"", "plain", "it's", "a b", "$HOME", "\x1b[31m", "\u202e", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := ShellQuote(s)
		if why := terminalUnsafe(q, false); why != "" && utf8.ValidString(s) {
			t.Fatalf("ShellQuote(%q) = %q shows a %s", s, q, why)
		}
		if strings.HasPrefix(q, "'") {
			// Single-quoted: only the '\'' escapes may hold quotes inside.
			inner := strings.ReplaceAll(q, `'\''`, "")
			if len(inner) < 2 || !strings.HasSuffix(inner, "'") || strings.Contains(inner[1:len(inner)-1], "'") {
				t.Fatalf("ShellQuote(%q) = %q is not one quoted word", s, q)
			}
		}
	})
}
