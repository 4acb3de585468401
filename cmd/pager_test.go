package cmd

import (
	"strings"
	"testing"

	"github.com/visualq/vq/sandbox"
)

// TestLongOutputGoesThroughThePagerInTmux: run_big's 350 failures as
// plain text on a terminal open in less, which q leaves, and vq exits
// after it with the answer's code; stderr's lines follow the output. In
// a pipe, with --no-pager or VQ_PAGER=cat, nothing waits.
func TestLongOutputGoesThroughThePagerInTmux(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds vq and drives a terminal")
	}
	env := terminalEnv(newRecordingSandbox(t, sandbox.Options{}).Env())
	p := startTmux(t, 100, 30, env, "true", "failures", "run_big", "--no-tui")
	screen := p.waitFor("the pager", shows("350 of 480 checks failed.", "failures (350):"))
	if strings.Contains(screen, "EXIT=") || strings.Contains(screen, "Next actions") {
		t.Fatalf("the output did not wait in the pager:\n%s", screen)
	}
	p.keys("G") // less: to the end
	p.waitFor("the end of the output", shows("Next actions:", "vq diff run_big"))
	p.keys("q")
	p.waitFor("vq's exit after the pager", shows("EXIT=0"))

	for _, args := range [][]string{
		{"failures", "run_big", "--no-tui", "--no-pager"},
		{"failures", "run_big", "--no-tui"}, // with VQ_PAGER=cat
	} {
		quiet := map[string]string{}
		for k, v := range env {
			quiet[k] = v
		}
		if !strings.Contains(strings.Join(args, " "), "--no-pager") {
			quiet["VQ_PAGER"] = "cat"
		}
		p := startTmux(t, 100, 30, quiet, "true", args...)
		p.waitFor("the output with no pager", shows("EXIT=0"))
	}
	// vq tools' 60-odd lines too.
	tools := startTmux(t, 100, 30, env, "true", "tools")
	screen = tools.waitFor("the tools in the pager", shows("approve_vrt_results"))
	if strings.Contains(screen, "EXIT=") {
		t.Fatalf("vq tools did not wait in the pager:\n%s", screen)
	}
	tools.keys("q")
	tools.waitFor("vq tools' exit", shows("EXIT=0"))

	// In a pipe: never paged, whatever the variables say.
	piped := startTmuxPiped(t, 100, 30, env, "tail -n 3", "failures", "run_big", "--no-tui")
	piped.waitFor("the piped output", shows("vq diff run_big", "EXIT=0"))
}
