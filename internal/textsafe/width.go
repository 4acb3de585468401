package textsafe

import (
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
