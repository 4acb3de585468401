package textsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Sanitize makes server text safe to write to a terminal: escape sequences
// (CSI, OSC, DCS, ...) are removed with their parameters, other C0 controls
// but newline and tab are dropped, C1 controls are dropped, line and
// paragraph separators become newlines, and characters that reorder or hide
// text (the invisible table) are made visible as <U+XXXX> instead of being
// obeyed. Invalid UTF-8 becomes U+FFFD.
func Sanitize(s string) string {
	if isSafe(s, true) {
		return s
	}
	return sanitize(s, true)
}

// SanitizeLine is Sanitize for one-line places (table cells, labels, status
// lines): newlines and tabs become spaces too.
func SanitizeLine(s string) string {
	if isSafe(s, false) {
		return s
	}
	return sanitize(s, false)
}

// Plain reports a name that is one line SanitizeLine keeps as it is, not empty:
// nothing a terminal would obey or hide.
func Plain(s string) bool { return s != "" && SanitizeLine(s) == s }

// isSafe reports text that sanitize returns unchanged: the common case, no copy.
func isSafe(s string, multiline bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !keptAsIs(r) {
				return false
			}
			i += size
			continue
		}
		if (c < ' ' || c == 0x7f) && !(multiline && (c == '\n' || c == '\t')) {
			return false
		}
		i++
	}
	return true
}

// keptAsIs reports a rune ≥ U+00A0 that sanitize keeps wherever it stands.
func keptAsIs(r rune) bool {
	return r >= 0xa0 && r != utf8.RuneError && r != lineSeparator && r != paragraphSeparator && !isInvisible(r)
}

func sanitize(s string, multiline bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c >= ' ' && c < 0x7f {
			b.WriteByte(c)
			i++
			continue
		}
		if r, size := utf8.DecodeRuneInString(s[i:]); keptAsIs(r) {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		i += sanitizeRune(&b, s, i, multiline)
	}
	return b.String()
}

// sanitizeRune writes what stands for the rune at s[i:] and how many bytes it
// took: a whole escape sequence at once.
func sanitizeRune(b *strings.Builder, s string, i int, multiline bool) int {
	r, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		b.WriteRune('\uFFFD')
	case r == 0x1b:
		return escapeLen(s[i:])
	case isC1Introducer(r):
		// C1 introducers of CSI, OSC, DCS, PM, APC, SOS: drop the whole
		// sequence as an ESC-based one would be.
		return size + controlStringLen(s[i+size:], r == 0x9b)
	case r == '\n' || r == '\t' || r == lineSeparator || r == paragraphSeparator:
		writeBreak(b, r, multiline)
	case r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0):
		// dropped
	case isInvisible(r) && !joinsEmoji(s, i, r, size):
		fmt.Fprintf(b, "<U+%04X>", r)
	default:
		b.WriteString(s[i : i+size])
	}
	return size
}

func isC1Introducer(r rune) bool {
	switch r {
	case 0x9b, 0x9d, 0x90, 0x9e, 0x9f, 0x98:
		return true
	}
	return false
}

// writeBreak writes a line break or tab: kept in multiline text (U+2028/9 as
// a newline), a space in one line.
func writeBreak(b *strings.Builder, r rune, multiline bool) {
	switch {
	case !multiline:
		b.WriteByte(' ')
	case r == '\t':
		b.WriteByte('\t')
	default:
		b.WriteByte('\n')
	}
}

// escapeLen is the length of the escape sequence s starts with, so all of it
// is removed, not just ESC.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + controlStringLen(s[2:], true)
	case ']', 'P', '^', '_', 'X':
		return 2 + controlStringLen(s[2:], false)
	}
	// ESC c, ESC 7, ESC ( B ...: intermediates then one final byte.
	n := 1
	for n < len(s) && s[n] >= 0x20 && s[n] <= 0x2f {
		n++
	}
	if n < len(s) {
		n++
	}
	return n
}

// controlStringLen measures the body of a CSI sequence (csi: parameters up to
// a final byte in 0x40–0x7e) or of a string sequence (OSC/DCS/...: up to BEL,
// ST or ESC \).
func controlStringLen(s string, csi bool) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if csi {
			if c >= 0x40 && c <= 0x7e {
				return i + 1
			}
			if c < 0x20 || c > 0x7e {
				return i // not a CSI after all: stop before the stray byte
			}
			continue
		}
		switch {
		case c == 0x07:
			return i + 1
		case c == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i
		case c == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c: // ST as UTF-8
			return i + 2
		}
	}
	return len(s)
}

const (
	lineSeparator      = 0x2028
	paragraphSeparator = 0x2029
)

// invisible is the one table of characters that change or break the text
// around them unseen: a server could hide or reorder what a person reads.
var invisible = []struct{ lo, hi rune }{
	{0x00ad, 0x00ad},   // soft hyphen
	{0x034f, 0x034f},   // combining grapheme joiner
	{0x061c, 0x061c},   // Arabic letter mark
	{0x115f, 0x1160},   // Hangul choseong and jungseong fillers
	{0x180e, 0x180e},   // Mongolian vowel separator
	{0x200b, 0x200f},   // zero-width space and joiners, LRM, RLM
	{0x2028, 0x2029},   // line and paragraph separators
	{0x202a, 0x202e},   // bidi embeddings and overrides
	{0x2060, 0x2064},   // word joiner, invisible operators
	{0x2066, 0x2069},   // bidi isolates
	{0x3164, 0x3164},   // Hangul filler
	{0xfe00, 0xfe0f},   // variation selectors
	{0xfeff, 0xfeff},   // zero-width no-break space
	{0xffa0, 0xffa0},   // halfwidth Hangul filler
	{0xe0000, 0xe007f}, // tags
	{0xe0100, 0xe01ef}, // variation selectors supplement
}

// isInvisible reports a character of the invisible table.
func isInvisible(r rune) bool {
	for _, span := range invisible {
		if r >= span.lo && r <= span.hi {
			return true
		}
	}
	return false
}

// joinsEmoji reports a variation selector after an emoji (☺️) or a ZWJ between
// two (👩‍💻): kept there, shown anywhere else.
func joinsEmoji(s string, i int, r rune, size int) bool {
	if r != 0xfe0e && r != 0xfe0f && r != 0x200d {
		return false
	}
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	if r != 0x200d {
		return isEmoji(prev)
	}
	next, _ := utf8.DecodeRuneInString(s[i+size:])
	return (isEmoji(prev) || prev == 0xfe0f) && isEmoji(next)
}

// isEmoji is a coarse test for the pictographs emoji sequences join.
func isEmoji(r rune) bool {
	return r >= 0x1f000 && r <= 0x1faff || r >= 0x2600 && r <= 0x27bf || r >= 0x2300 && r <= 0x23ff || r >= 0x2b00 && r <= 0x2bff
}
