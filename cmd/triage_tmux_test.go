package cmd

import (
	"strings"
	"testing"

	"github.com/visualq/vq/sandbox"
)

// TestTriageInTmux is a triage session on the sandbox's run_big as a
// person has it in a 120×40 tmux pane: filter, mark the rows shown,
// approve them in one batch and see the failures list shrink by as many;
// then step through diffs with n and p, each with its half-block preview.
func TestTriageInTmux(t *testing.T) {
	t.Parallel()
	p, _ := sandboxTUI(t, sandbox.Options{}, 120, 40, "failures", "run_big")
	p.waitFor("the failures", shows("✗ 350 of 480 checks failed", "failures (350)", "enter inspect"))

	// Cart 1 and Cart 10–12, on three viewports each.
	p.keys("/")
	p.keys("-l", "cart 1")
	p.waitFor("the filter", shows("failures (12 of 350)", "12 of 350"))
	p.keys("Enter", "*")
	p.waitFor("the marks, in words from the first screen", shows("● 12 marked", "A approve 12 marked"))
	p.keys("A")
	p.waitFor("the batch dialog", shows("Approve 12 checks? [y/N]", "Cart 1 desktop", "approve_vrt_results ×12, each with confirm: true"))
	p.keys("y")
	screen := p.waitFor("the refreshed failures", shows("Approved 12 checks", "✗ 338 of 480 checks failed"))
	if !strings.Contains(screen, "failures (0 of 338)") {
		t.Errorf("the filter no longer applies after the refresh, or approved rows are listed:\n%s", screen)
	}

	p.keys("Escape") // clear the filter
	p.waitFor("every failure", shows("failures (338)"))
	p.keys("Enter")
	p.waitFor("the first diff and its preview", shows("run_big › Inspect Homepage 1 desktop", "changedPixels", "baseline", "▀"))
	colours := p.run("capture-pane", "-e", "-p", "-t", "vq")
	if !strings.Contains(colours, "▀") || !(strings.Contains(colours, "38;2;") || strings.Contains(colours, "38;5;")) {
		t.Errorf("no half-block preview in colour:\n%s", colours)
	}
	p.keys("n")
	p.waitFor("the next diff", shows("run_big › Inspect Homepage 1 tablet"))
	// Keys wait while a call is out (the spinner says so): one at a time.
	p.keys("n")
	p.waitFor("the diff after it", shows("run_big › Inspect Homepage 1 mobile"))
	p.keys("p")
	p.waitFor("the previous diff", shows("run_big › Inspect Homepage 1 tablet"))
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))
}

// TestYesConsentsInTheTUIWithoutADialog is --yes in the TUI: the consent
// the policy gives, so a and A send at once, each call with confirm:
// true, and no dialog asks.
func TestYesConsentsInTheTUIWithoutADialog(t *testing.T) {
	t.Parallel()
	p, s := sandboxTUI(t, sandbox.Options{}, 120, 40, "failures", "run_big", "--yes")
	p.waitFor("the failures", shows("✗ 350 of 480 checks failed", "failures (350)"))
	p.keys("Enter")
	p.waitFor("the first diff", shows("run_big › Inspect Homepage 1 desktop", "changedPixels"))
	p.keys("a")
	screen := p.waitFor("the approval", shows("✓ Approved 1 check in run_big; 349 still failing."))
	if strings.Contains(screen, "[y/N]") {
		t.Errorf("--yes still asked:\n%s", screen)
	}
	p.keys("Escape")
	p.waitFor("the failures again", shows("failures (349)"))
	p.keys("/")
	p.keys("-l", "cart 1")
	p.waitFor("the filter", shows("failures (12 of 349)"))
	p.keys("Enter", "*", "A")
	screen = p.waitFor("the batch's report", shows("Approved 12 checks", "✗ 337 of 480 checks failed"))
	if strings.Contains(screen, "[y/N]") {
		t.Errorf("--yes still asked for the batch:\n%s", screen)
	}
	approvals := s.InvokedCalls("approve_vrt_results")
	if len(approvals) != 13 {
		t.Fatalf("the server got %d approvals, want 13", len(approvals))
	}
	for _, c := range approvals {
		if c.Args["confirm"] != true {
			t.Errorf("an approval went without consent: %+v", c.Args)
		}
	}
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))
}
