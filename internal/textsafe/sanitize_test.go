package textsafe

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// terminalUnsafe reports what Sanitize promises never to let through.
func terminalUnsafe(s string, multiline bool) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for i, r := range s {
		switch {
		case (r == '\n' || r == '\t') && multiline:
		case r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return "control character"
		case isInvisible(r) && !joinsEmoji(s, i, r, utf8.RuneLen(r)):
			return "invisible character"
		}
	}
	return ""
}

// Every character of the invisible table, alone between letters, is shown
// as <U+XXXX>, never passed through; line separators break lines as a
// newline does; emoji keep the joiners they are made of.
func TestInvisibleCharactersAreShownNotObeyed(t *testing.T) {
	t.Parallel()
	for _, span := range invisible {
		for r := span.lo; r <= span.hi; r++ {
			in := "a" + string(r) + "b"
			want := fmt.Sprintf("a<U+%04X>b", r)
			if r == lineSeparator || r == paragraphSeparator {
				want = "a\nb"
			}
			if got := Sanitize(in); got != want {
				t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
			}
			if got := SanitizeLine(in); strings.ContainsRune(got, r) || strings.ContainsRune(got, '\n') {
				t.Errorf("SanitizeLine(%q) = %q", in, got)
			}
		}
	}
	for _, emoji := range []string{"☺\ufe0f", "👩\u200d💻", "❤\ufe0f\u200d🔥"} {
		if got := Sanitize(emoji); got != emoji {
			t.Errorf("Sanitize(%q) = %q: an emoji lost its joiners", emoji, got)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred\x1b[0m", "\x1b]0;title\x07", "\x1b]52;c;Zm9v\x1b\\", "\u009b31m", "a\u202eb\u200bc", "\xff\xfe", "a\u2028b\u00adc\U000E0041", "👩\u200d💻\ufe0f", "line\nnext\ttab\r", "\x1bP+q\x1b\\"} {
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
		// The copy-free path answers what the full one would.
		for _, multiline := range []bool{true, false} {
			if isSafe(s, multiline) && sanitize(s, multiline) != s {
				t.Fatalf("isSafe(%q, %v) but sanitize changes it to %q", s, multiline, sanitize(s, multiline))
			}
		}
	})
}
