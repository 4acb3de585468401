package cmd

import (
	"strings"
	"testing"

	"github.com/visualq/vq/sandbox"
)

// TestTUIChainsGoesBackAndLeavesItsLastScreen is the TUI's round trip in a
// 120×40 tmux pane: it starts on get_run_failures, chains into a diff with
// Enter, goes back with Esc (no call), quits with q; the last screen stays
// in the scrollback, once and without the key help, and the exit code is
// the answer's.
func TestTUIChainsGoesBackAndLeavesItsLastScreen(t *testing.T) {
	t.Parallel()
	// Under 120 columns: no diff is fetched beside the list.
	p, s := sandboxTUI(t, sandbox.Options{}, 110, 40, "failures", "run_abc")
	p.waitFor("the failures", shows("✗ 3 of 12 checks failed", "failures (3)", "›  Homepage"))
	p.keys("Enter")
	p.waitFor("the diff", shows("run_abc › Inspect Homepage desktop", "changedPixels"))
	if tools := s.InvokedTools(); tools != "get_run_failures,get_diff_stats" {
		t.Fatalf("the server was called with %s", tools)
	}
	p.keys("Escape")
	p.waitFor("the failures again", func(screen string) bool {
		return strings.Contains(screen, "failures (3)") && !strings.Contains(screen, "changedPixels")
	})
	if tools := s.InvokedTools(); tools != "get_run_failures,get_diff_stats" {
		t.Errorf("Esc sent a call: %s", tools)
	}
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))
	text := p.run("capture-pane", "-p", "-J", "-S", "-200", "-t", "vq")
	final := text[:strings.Index(text, "EXIT=0")]
	for _, want := range []string{"✗ 3 of 12 checks failed", "Product page", "tablet"} {
		if !strings.Contains(final, want) {
			t.Errorf("the scrollback lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(final, "✗ 3 of 12 checks failed"); n != 1 {
		t.Errorf("the scrollback holds %d copies of the failures screen, want 1:\n%s", n, text)
	}
	// The loading frame above it may have scrolled up with its key bar (a
	// pane drawn before tmux gave it its size): the last screen has none.
	if last := final[strings.LastIndex(final, "✗ 3 of 12 checks failed"):]; strings.Contains(last, "q quit") {
		t.Errorf("the key help stayed in the scrollback:\n%s", text)
	}
}
