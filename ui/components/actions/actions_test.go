package actions

import (
	"strconv"
	"strings"
	"testing"
)

// A long list shows a window around the cursor, numbers only the first
// nine, marks writes, and counts what is out of view.
func TestLongListShowsAWindowAroundTheCursor(t *testing.T) {
	t.Parallel()
	acts := make([]Action, 20)
	for i := range acts {
		acts[i] = Action{Label: "Do \x1b[31m" + strconv.Itoa(i+1), Tool: "tool_" + strconv.Itoa(i+1), Write: i == 10}
	}
	m := New(acts)
	m.SetCursor(10)
	lines := m.View(Styles{}, 80, 24, true, false)
	text := strings.Join(lines, "\n")
	if lines[0] != "Next actions" || !strings.Contains(text, "›    Do 11  tool_11  [write]") || !strings.Contains(text, "   Do 10  tool_10") || strings.Contains(text, "\x1b[31m") {
		t.Errorf("window:\n%s", text)
	}
	if len(lines) != 1+6+1 || lines[len(lines)-1] != "  14 more (↑/↓)" {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	m.SetCursor(99)
	if m.Cursor() != 19 {
		t.Errorf("cursor past the end: %d", m.Cursor())
	}
}
