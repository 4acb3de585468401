package cmd

import (
	"fmt"
	"github.com/visualq/vq/cmd/cmdtest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// TestLongOutputGoesThroughThePagerInTmux: run_big's 350 failures as
// plain text on a terminal open in less, which q leaves, and vq exits
// after it with the answer's code; stderr's lines follow the output. In
// a pipe, with --no-pager or VQ_PAGER=cat, nothing waits.
func TestLongOutputGoesThroughThePagerInTmux(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("drives a terminal")
	}
	env := terminalEnv(cmdtest.NewSandbox(t, sandbox.Options{}).Env())
	p := startTmux(t, 100, 30, env, "true", "failures", "run_big", "--no-tui")
	screen := p.waitFor("the pager", shows("✗ 350 of 480 checks failed", "failures (350):"))
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

// A pager that does not exist costs nothing of the output: a command of
// plain words is found before any output goes to it, and vq says once
// that it prints without it; a shell's command line whose program is
// missing showed nothing, which vq says and exits on (it printed
// "sh: not found", lost the output and exited 0).
func TestAPagerThatDoesNotExistIsSaidAndTheOutputShown(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("drives a terminal")
	}
	env := terminalEnv(cmdtest.NewSandbox(t, sandbox.Options{}).Env())
	env["PAGER"] = "vq-no-such-pager -R"
	p := startTmux(t, 200, 40, env, "true", "failures", "run_abc", "--no-tui")
	screen := p.waitFor("the output without the pager", shows("EXIT=0"))
	warning := `warning: the pager "vq-no-such-pager -R" could not start (exec: "vq-no-such-pager": executable file not found in $PATH): the output is printed without it`
	if strings.Count(screen, warning) != 1 || !strings.Contains(screen, "Next actions:") {
		t.Errorf("want the output and once %q:\n%s", warning, screen)
	}

	env["PAGER"] = "vq-no-such-pager --prompt=x"
	p = startTmux(t, 200, 40, env, "true", "failures", "run_abc", "--no-tui")
	screen = p.waitFor("vq's exit", shows("EXIT="))
	if !strings.Contains(screen, `error: the pager "vq-no-such-pager --prompt=x" could not run (exit status 127): the output was not shown`) || !strings.Contains(screen, "EXIT=1") {
		t.Errorf("a shell's pager that could not run was not said, or vq exited 0:\n%s", screen)
	}
}

// While a pager that never reads holds stdout (vq blocked writing 100k
// failures to it, or waiting for it to end), SIGTERM and SIGINT still end
// vq, and the pager with it.
func TestSignalsEndVQWhileAPagerThatNeverReadsHoldsStdout(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("drives a terminal")
	}
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		exit int
		args []string
	}{
		{"SIGTERM while vq writes", syscall.SIGTERM, exitcode.Terminated, []string{"failures", "run_100k", "--no-tui"}},
		{"SIGINT while vq writes", syscall.SIGINT, exitcode.Interrupted, []string{"failures", "run_100k", "--no-tui"}},
		{"SIGTERM while vq waits for the pager", syscall.SIGTERM, exitcode.Terminated, []string{"failures", "run_abc", "--no-tui"}},
		{"SIGINT while vq waits for the pager", syscall.SIGINT, exitcode.Interrupted, []string{"failures", "run_abc", "--no-tui"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			started, pid := filepath.Join(dir, "started"), filepath.Join(dir, "pid")
			pager := filepath.Join(dir, "pager")
			script := "#!/bin/sh\necho $$ > " + pid + "\ntouch " + started + "\nexec sleep 1000\n"
			if err := os.WriteFile(pager, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			env := terminalEnv(cmdtest.NewSandbox(t, sandbox.Options{}).Env())
			env["PAGER"] = pager
			p := startTmux(t, 100, 30, env, "true", tc.args...)
			ctx := testkit.Bound(t)
			for _, err := os.Stat(started); err != nil; _, err = os.Stat(started) {
				if ctx.Err() != nil {
					t.Fatalf("the pager never started:\n%s", p.run("capture-pane", "-p", "-t", "vq"))
				}
				time.Sleep(20 * time.Millisecond)
			}
			vq, _ := os.FindProcess(p.pid())
			if err := vq.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			p.waitFor("vq's exit", shows(fmt.Sprintf("EXIT=%d", tc.exit)))
			b, _ := os.ReadFile(pid)
			n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if pager, _ := os.FindProcess(n); n == 0 || pager.Signal(syscall.Signal(0)) == nil {
				t.Errorf("the pager (pid %q) outlived vq", b)
			}
		})
	}
}
