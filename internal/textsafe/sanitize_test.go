package textsafe

import (
	"testing"
	"unicode/utf8"
)

// terminalUnsafe reports what Sanitize promises never to let through.
func terminalUnsafe(s string, multiline bool) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for _, r := range s {
		switch {
		case (r == '\n' || r == '\t') && multiline:
		case r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return "control character"
		case isInvisible(r):
			return "invisible character"
		}
	}
	return ""
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "\x1b]52;c;Zm9v\x1b\\", "\u009b31m", "a\u202eb\u200bc", "\xff\xfe", "line\nnext\ttab\r", "\x1bP+q\x1b\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		if why := terminalUnsafe(out, true); why != "" {
			t.Fatalf("Sanitize(%q) = %q: %s", s, out, why)
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("not idempotent: %q → %q → %q", s, out, again)
		}
		line := SanitizeLine(s)
		if why := terminalUnsafe(line, false); why != "" {
			t.Fatalf("SanitizeLine(%q) = %q: %s", s, line, why)
		}
	})
}
