package cmd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/sandbox"
)

// reviewPane opens vq failures run_big (350 failures) on a fresh sandbox
// in a width×height tmux pane, as a developer triaging the run has it.
func reviewPane(t *testing.T, width, height int, args ...string) *tmuxPane {
	t.Helper()
	p, _ := sandboxTUI(t, sandbox.Options{Rate: -1}, width, height, append([]string{"failures", "run_big"}, args...)...)
	p.waitFor("the failures", shows("✗ 350 of 480 checks failed", "failures (350)"))
	return p
}

// tableRow is a row of the failures table as drawn: the selection, the
// mark and the review state, then the cells.
var tableRow = regexp.MustCompile(`^([› ])[● ][ ✓…✗](\S.*)$`)

// selected is the row the selection is on: its cells, spaced once.
func selected(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if m := tableRow.FindStringSubmatch(l); m != nil && m[1] == "›" {
			return strings.Join(strings.Fields(m[2]), " ")
		}
	}
	return ""
}

// selectedIs is a waitFor condition: the selection is on the row that
// starts with check.
func selectedIs(check string) func(string) bool {
	return func(screen string) bool { return strings.HasPrefix(selected(screen), check) }
}

// TestMarksYouCanSeeInTmux (issue 31, items 1 and 7): the foot counts the
// marks, filtered or not; A says what it does to how many; its dialog asks
// in a person's words with the tool on the detail line; Esc asks before it
// drops the marks.
func TestMarksYouCanSeeInTmux(t *testing.T) {
	t.Parallel()
	p := reviewPane(t, 120, 40)
	p.keys("Enter")
	p.waitFor("a diff, whose approve action the rows learn", shows("run_big › Inspect Homepage 1 desktop"))
	p.keys("Escape") // a key right after Esc would read as Alt+key: wait first
	p.waitFor("the failures again", shows("failures (350)"))
	p.keys("Space", "Space", "Space")
	p.waitFor("three marks", shows("● 3 marked", "A approve 3 marked"))
	p.keys("/")
	p.keys("-l", "cart 1")
	p.keys("Enter", "*")
	p.waitFor("the marks with a filter", shows("● 15 marked (3 hidden by the filter)", "A approve 15 marked"))
	p.keys("A")
	screen := p.waitFor("the batch dialog", shows("Approve 15 checks? [y/N]", "Cart 1 desktop", "… and 12 more",
		"approve_vrt_results ×15, each with confirm: true", "y yes"))
	if strings.Contains(screen, "Send all") || strings.Contains(screen, "A write marked") {
		t.Errorf("the dialog speaks the wire:\n%s", screen)
	}
	p.keys("n")
	p.waitFor("nothing sent", shows("● 15 marked (3 hidden by the filter) · not sent"))
	p.keys("Escape") // the filter
	p.waitFor("no filter", func(screen string) bool {
		return shows("failures (350)", "● 15 marked")(screen) && !strings.Contains(screen, "hidden")
	})
	p.keys("Escape")
	p.waitFor("the question before the marks go", shows("Drop the 15 marks? [y/N]"))
	p.keys("y")
	screen = p.waitFor("the marks dropped", shows("15 marks dropped"))
	if strings.Contains(screen, "● ") {
		t.Errorf("marks left:\n%s", screen)
	}
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))
}

// TestCursorFollowsItsCheckInTmux (item 2): approving the rows above it,
// filtering it out and back, and sorting keep the selection on its check.
func TestCursorFollowsItsCheckInTmux(t *testing.T) {
	t.Parallel()
	p := reviewPane(t, 120, 40)
	p.keys("Space", "Space", "Space", "j") // Homepage 1 on three viewports; then Product page 1 tablet
	p.waitFor("the selection", selectedIs("Product page 1 tablet"))
	p.keys("Enter")
	p.waitFor("its diff", shows("run_big › Inspect Product page 1 tablet", "changedPixels"))
	p.keys("Escape")
	p.waitFor("the failures again", shows("failures (350)"))
	p.keys("A")
	p.waitFor("the dialog", shows("Approve 3 checks? [y/N]"))
	p.keys("y")
	screen := p.waitFor("the refreshed failures", shows("Approved 3 checks", "✗ 347 of 480 checks failed"))
	if got := selected(screen); !strings.HasPrefix(got, "Product page 1 tablet") {
		t.Errorf("after approving the rows above it the selection is on %q:\n%s", got, screen)
	}
	p.keys("/")
	p.keys("-l", "category")
	p.keys("Enter")
	p.waitFor("the nearest check the filter shows", selectedIs("Category 1 desktop"))
	p.keys("Escape")
	p.waitFor("the check again, the filter gone", selectedIs("Product page 1 tablet"))
	p.keys("s") // a sort shows its top instead
	p.waitFor("a sort, its first row selected", func(s string) bool {
		return shows("Scenario ▲", "rows 1–")(s) && selectedIs("Account 1 desktop")(s)
	})
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))
}

// TestBarsKeepOneScaleInTmux (item 4): a check's bar is the same in the
// list, on its diff, and after other rows are approved.
func TestBarsKeepOneScaleInTmux(t *testing.T) {
	t.Parallel()
	p := reviewPane(t, 120, 40)
	bar := strings.TrimRight(layout.MismatchBar(5.3), " ")
	screen := p.waitFor("the bars and their legend", shows(layout.MismatchLegend))
	if row := selected(screen); !strings.Contains(row, "5.3 "+bar) {
		t.Fatalf("Homepage 1 desktop's row %q lacks the bar %q", row, bar)
	}
	p.keys("Enter")
	p.waitFor("the same bar on its diff", shows("run_big › Inspect Homepage 1 desktop", "5.3 "+bar+"  ("+layout.MismatchScale+")"))
	p.keys("Escape")
	p.waitFor("the failures again", shows("failures (350)"))
	// The largest changes go: Homepage 1 mobile (24.5%) and tablet (15.6%).
	p.keys("j", "Space", "Space", "A")
	p.waitFor("the dialog", shows("Approve 2 checks? [y/N]"))
	p.keys("y")
	screen = p.waitFor("the refreshed list", shows("Approved 2 checks", "✗ 348 of 480 checks failed"))
	for _, l := range strings.Split(screen, "\n") {
		if tableRow.MatchString(l) && strings.Contains(l, "Homepage 1 ") && strings.Contains(l, "desktop") && !strings.Contains(l, "5.3 "+bar) {
			t.Errorf("the bar of Homepage 1 desktop changed with the rows around it: %q", l)
		}
	}
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))
}

// rowCount counts the failures' rows on a screen.
func rowCount(screen string) int {
	n := 0
	for _, l := range strings.Split(screen, "\n") {
		if tableRow.MatchString(l) {
			n++
		}
	}
	return n
}

// TestTenRowsAt80x24InTmux (item 5): an 80×24 terminal shows ten rows
// and more: the fields fold into a line, which e opens and folds again.
func TestTenRowsAt80x24InTmux(t *testing.T) {
	t.Parallel()
	p := reviewPane(t, 80, 24)
	screen := p.waitFor("the folded fields", shows("runId run_big · failed 350", "(e shows 4 fields)"))
	if n := rowCount(screen); n < 10 {
		t.Errorf("80×24 shows %d rows:\n%s", n, screen)
	}
	p.keys("e")
	screen = p.waitFor("every field", shows("runId   run_big", "total   480"))
	if strings.Contains(screen, "e shows") {
		t.Errorf("e did not open the fields:\n%s", screen)
	}
	p.keys("e")
	p.waitFor("the fields folded again", shows("(e shows 4 fields)"))
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))
}

// TestSortingInTmux (item 6): the first s sorts the first column, text in
// natural order, the arrow apart from the next column's name; S reverses;
// the full help says what s sorts by next.
func TestSortingInTmux(t *testing.T) {
	t.Parallel()
	p := reviewPane(t, 120, 40)
	p.keys("G")
	p.waitFor("the bottom of the list", shows("of 350", "–350 of 350"))
	p.keys("s") // the view and the cursor go to the sorted list's top, no g needed
	screen := p.waitFor("the first column sorted, its top selected", func(s string) bool {
		return shows("Scenario ▲  ", "Account 2 ", "rows 1–")(s) && strings.HasPrefix(selected(s), "Account 1 ")
	})
	if !strings.Contains(screen, "runId run_big · failed 350") {
		t.Errorf("the sorted list is not under the fields:\n%s", screen)
	}
	p.keys("f", "j") // a page down and a row: Account 9 and 10 in view
	screen = p.waitFor("Account 9 and 10", shows("Account 9 ", "Account 10 "))
	if strings.Index(screen, "Account 10 ") < strings.Index(screen, "Account 9 ") {
		t.Errorf("Account 10 sorts before Account 9:\n%s", screen)
	}
	p.keys("?")
	p.waitFor("the full help", shows("sort: Viewport", "reverse sort"))
	p.keys("?", "S")
	p.waitFor("the order reversed, its top selected", func(s string) bool {
		return shows("Scenario ▼", "rows 1–")(s) && selected(s) != "" && !strings.HasPrefix(selected(s), "Account ")
	})
	p.keys("G", "s", "s") // from the bottom: viewport, then mismatch, largest first
	screen = p.waitFor("the worst check on top, selected", func(s string) bool {
		head := strings.Index(s, "Mismatch % ▼")
		return head >= 0 && shows("rows 1–")(s) && strings.HasPrefix(strings.SplitN(s[head:], "\n", 3)[1], "›")
	})
	if strings.Contains(screen, "sort: Viewport") {
		t.Errorf("the help stayed open:\n%s", screen)
	}
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))
}
