package textsafe

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// DisplayWidth is the terminal width of sanitized text, measured as the TUI
// (lipgloss) measures it, so plain tables and the TUI align alike.
func DisplayWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// MaxLineBytes bounds each piece of server text drawn on one line, before
// it is measured or sanitized: a frame then costs the same for a 20 MB
// summary or cell as for a short one. No terminal line is this wide.
const MaxLineBytes = 4096

// Clip cuts s to at most n bytes, at a rune's start, marking the cut with
// an ellipsis.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Fit pads or cuts sanitized text to exactly width columns, aligned
// right or left; a piece longer than MaxLineBytes is clipped first.
func Fit(s string, width int, right bool) string {
	s = Clip(s, MaxLineBytes)
	w := DisplayWidth(s)
	if w > width {
		return ansi.Truncate(s, width, "…")
	}
	padding := strings.Repeat(" ", width-w)
	if right {
		return padding + s
	}
	return s + padding
}
