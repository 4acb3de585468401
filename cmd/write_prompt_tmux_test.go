package cmd

import (
	"strings"
	"testing"

	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/sandbox"
)

// A write command on a terminal asks at the line prompt, in words, prints
// its answer with its next actions as commands and ends, as gh issue close
// does: no TUI to leave with q. A person who declines reads one plain line,
// and the exit code stays confirm_required (12) for scripts.
func TestAWriteAsksPrintsAndEnds(t *testing.T) {
	t.Parallel()
	s := cmdtest.NewSandbox(t, sandbox.Options{Rate: -1})
	env := terminalEnv(s.Env())

	p := startTmux(t, 120, 40, env, "true", "approve", "run_abc", "--scenario", "Checkout", "--viewport", "mobile")
	p.waitFor("the question in words", shows("Approve 1 check (Checkout, mobile) in run_abc? [y/N]"))
	p.keys("y", "Enter")
	screen := p.waitFor("the answer, its next action as a command, and vq's end",
		shows("Approved 1 check in run_abc", "vq failures run_abc", "EXIT=0"))
	if strings.Contains(screen, "q quit") || strings.Contains(screen, "approve_vrt_results") {
		t.Errorf("a write opened the TUI or named the wire's tool:\n%s", screen)
	}

	p = startTmux(t, 120, 40, env, "true", "approve", "run_abc", "--scenario", "Homepage", "--viewport", "desktop")
	p.waitFor("the question", shows("Approve 1 check (Homepage, desktop) in run_abc? [y/N]"))
	p.keys("n", "Enter")
	screen = p.waitFor("vq's end", shows("EXIT=12"))
	if got := strings.TrimSpace(screen[strings.Index(screen, "[y/N] n")+len("[y/N] n") : strings.Index(screen, "EXIT=12")]); got != "Not approved: nothing was sent." {
		t.Errorf("declined: got %q, want the one plain line", got)
	}
	if n := len(s.CallsOf("approve_vrt_results")); n != 1 {
		t.Errorf("the server received %d approvals, want only the consented one", n)
	}

	p = startTmux(t, 120, 40, env, "true", "scenario", "create", "--goal", "add a product to the cart")
	p.waitFor("the question in words", shows(`Create "add a product to the cart"? [y/N]`))
	p.keys("y", "Enter")
	screen = p.waitFor("the answer and vq's end", shows("scn_add_to_cart", "EXIT=0"))
	if strings.Contains(screen, "q quit") {
		t.Errorf("scenario create opened the TUI:\n%s", screen)
	}
	p = startTmux(t, 120, 40, env, "true", "scenario", "create", "--goal", "add a product to the cart")
	p.waitFor("the question", shows(`Create "add a product to the cart"? [y/N]`))
	p.keys("Enter")
	p.waitFor("one plain line and vq's end", shows("[y/N]\nNot created: nothing was written.\nEXIT=12"))
}
