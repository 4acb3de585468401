package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/sandbox"
)

// firstLines are the screen's first n lines that hold text.
func firstLines(screen string, n int) string {
	var lines []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.TrimSpace(l) != "" && len(lines) < n {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// TestTheVerdictComesFirstInWords is the head of the screen as a person
// at an 80×24 terminal reads it: the run's verdict in words, no tool's
// wire name in the first two lines, columns headed in words and no
// column of links; after a CI run that failed, no green line follows the
// red one.
func TestTheVerdictComesFirstInWords(t *testing.T) {
	t.Parallel()
	p, s := sandboxTUI(t, sandbox.Options{JobStep: time.Millisecond}, 80, 24, "failures", "run_abc")
	screen := p.waitFor("the failures", shows("failures (3)", "q quit"))
	head := firstLines(screen, 2)
	if !strings.HasPrefix(head, "✗ 3 of 12 checks failed") || strings.Contains(head, "get_run_failures") {
		t.Errorf("the screen opens on %q, want the verdict in words and no tool name", head)
	}
	if !strings.Contains(screen, "Scenario      Viewport    Mismatch %") || strings.Contains(screen, "diffUrl") || strings.Contains(screen, "diff.png") {
		t.Errorf("the columns are not headed in words, or a column of links is shown:\n%s", screen)
	}
	p.keys("Enter")
	screen = p.waitFor("the diff", shows("changedPixels"))
	if head := firstLines(screen, 2); !strings.HasPrefix(head, "✓ Homepage on desktop") || strings.Contains(head, "get_") {
		t.Errorf("the diff opens on %q, want its summary marked ✓ and no tool name", head)
	}
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))

	p = startTmux(t, 80, 24, terminalEnv(s.Env()), "true", "ci", "run-vrt", "branch=feature/new-header", "--wait", "--interval", "2ms")
	screen = p.waitFor("the failed run", shows("3 of 12 checks changed", "failures (3)"))
	if strings.Contains(screen, "✓") || strings.Contains(firstLines(screen, 3), "get_run_status") {
		t.Errorf("a failed run shows a ✓ or the tool in its head:\n%s", screen)
	}
	if !strings.Contains(screen, "✗ 3 of 12 checks failed") {
		t.Errorf("no verdict in words:\n%s", screen)
	}
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=3"))
}

// TestNextActionsFollowTheTable: the failures' next actions are its rows'
// (inspect each), so the table, filtered and sorted, offers them and no
// second list does; a filter leaves no action for a row it hides.
func TestNextActionsFollowTheTable(t *testing.T) {
	t.Parallel()
	p, s := sandboxTUI(t, sandbox.Options{}, 100, 40, "failures", "run_abc")
	screen := p.waitFor("the failures", shows("failures (3)", "enter inspect"))
	if strings.Contains(screen, "Inspect Checkout mobile") || strings.Contains(screen, "Next actions") {
		t.Errorf("a list beside the table offers its rows again:\n%s", screen)
	}
	p.keys("/")
	p.keys("-l", "prod")
	p.keys("Enter")
	screen = p.waitFor("the filter", shows("failures (1 of 3)"))
	if strings.Contains(screen, "Checkout") {
		t.Errorf("the filter hides Checkout, yet it is offered:\n%s", screen)
	}
	p.keys("1") // no list: the number runs nothing
	p.keys("S") // one row: it is the first, and Enter inspects it
	p.keys("Enter")
	p.waitFor("the filtered row's diff", shows("run_abc › Inspect Product page tablet", "changedPixels"))
	if tools := s.InvokedTools(); tools != "get_run_failures,get_diff_stats" {
		t.Errorf("the server was called with %s", tools)
	}
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))
}

// TestTheDiffAt80x24 is a check's screen in an 80×24 pane: the key bar
// ends with ? and q, the screenshot is named above it, and z shows it
// over the whole screen, i the next one there, esc back to the check.
func TestTheDiffAt80x24(t *testing.T) {
	t.Parallel()
	p, _ := sandboxTUI(t, sandbox.Options{}, 80, 24, "failures", "run_abc")
	p.waitFor("the failures", shows("failures (3)"))
	p.keys("Enter")
	screen := p.waitFor("the diff and its preview", shows("Homepage on desktop", "diff image  (o opens it", "▀"))
	if bar := lastLine(screen); !strings.HasSuffix(bar, "? more keys • q quit") {
		t.Errorf("the key bar is %q, want it to end with help and quit", bar)
	}
	preview := strings.Count(screen, "▀")
	p.keys("z")
	screen = p.waitFor("the diff over the screen", shows("diff image  (z or esc goes back, i shows the baseline)"))
	if n := strings.Count(screen, "▀"); n < 3*preview {
		t.Errorf("full screen shows %d cells of the picture, the preview %d:\n%s", n, preview, screen)
	}
	p.keys("i")
	p.waitFor("the baseline over the screen", shows("baseline image  (z or esc goes back, i shows the test)"))
	p.keys("Escape")
	p.waitFor("the check again", shows("Homepage on desktop", "baseline image  (o opens it"))
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))
}

// lastLine is the screen's last line that holds text.
func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	return strings.TrimRight(lines[len(lines)-1], " ")
}

// TestTheDiffBesideTheListAt120Columns: on a wide terminal the selected
// check's diff is drawn beside the failures, named, fetched once the
// cursor rests on a row, and follows the cursor.
func TestTheDiffBesideTheListAt120Columns(t *testing.T) {
	t.Parallel()
	p, s := sandboxTUI(t, sandbox.Options{}, 120, 40, "failures", "run_abc")
	p.waitFor("the first check's diff beside the list", shows("failures (3)", "│ diff · Inspect Homepage desktop", "│ ▀"))
	p.keys("j")
	p.waitFor("the next check's diff", shows("│ diff · Inspect Checkout mobile", "│ ▀"))
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))
	if tools := s.InvokedTools(); tools != "get_run_failures,get_diff_stats,get_diff_stats" {
		t.Errorf("the server was called with %s, want one read a check shown", tools)
	}
}
