package layout

import (
	"strings"
	"unicode"
)

// Table is a list of records laid out for display, cells sanitized.
type Table struct {
	Columns []string
	Numeric []bool // right-aligned: every non-empty cell a number
	Rows    [][]string
	More    int // columns left out
}

// headings are the words that head the columns of well-known members.
var headings = map[string]string{"scenarioLabel": "Scenario", "mismatchPercent": "Mismatch %", "runId": "Run"}

// Heading is a column's heading in words: "Scenario", "Mismatch %", "Changed pixels" for changedPixels.
func Heading(name string) string {
	if h, ok := headings[name]; ok {
		return h
	}
	runes := []rune(name)
	var b strings.Builder
	for i, r := range runes {
		switch {
		case i == 0:
			r = unicode.ToUpper(r)
		case r == '_':
			r = ' '
		case unicode.IsUpper(r) && unicode.IsLower(runes[i-1]):
			b.WriteByte(' ')
			if i+1 == len(runes) || !unicode.IsUpper(runes[i+1]) {
				r = unicode.ToLower(r) // an acronym (ID) keeps its capitals
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isLink reports a member named for a link (diffUrl, imageURL).
func isLink(name string) bool {
	return strings.HasSuffix(name, "Url") || strings.HasSuffix(name, "URL")
}
