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

// MaxLineBytes bounds server text drawn on one line, before it is measured or
// sanitized: a 20 MB cell costs a frame no more. No terminal is this wide.
const MaxLineBytes = 4096

// Clip cuts s to at most n bytes at a rune's start, marked with an ellipsis.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Fit pads or cuts sanitized text to width columns (clipped to MaxLineBytes).
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
