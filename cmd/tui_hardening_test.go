package cmd

import (
	"bytes"
	"context"
	"github.com/visualq/vq/cmd/cmdtest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/sandbox"
)

// asPanickyVQ makes the cmd test binary run as vq (see TestMain).
const asPanickyVQ = "VQ_TEST_AS_PANICKY_VQ"

// TestPanicInACommandExitsInternal: a panic while a command runs is a bug
// of vq's: exit 1 with one line on stderr, never exit 2 (usage) or a Go
// stack dump; --debug (or VQ_DEBUG) adds the stack.
func TestPanicInACommandExitsInternal(t *testing.T) {
	t.Parallel()
	for _, debug := range []bool{false, true} {
		env := map[string]string{"VQ_CONFIG": t.TempDir() + "/c.json", "VQ_NO_KEYRING": "1", "VQ_API_KEY": "k"}
		if debug {
			env["VQ_DEBUG"] = "1"
		}
		var out, errOut bytes.Buffer
		f := &cmdutil.Factory{
			IOStreams: &iostreams.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
			Getenv: func(k string) string {
				if k == "VQ_BASE_URL" {
					panic("injected by the test\nsecond line")
				}
				return env[k]
			},
		}
		err := execute(context.Background(), f, []string{"failures", "run_1"}, func() {})
		report(f, err)
		if code := exitcode.Of(err); code != exitcode.Internal {
			t.Errorf("debug %v: exit %d, want %d (internal)", debug, code, exitcode.Internal)
		}
		lines := strings.Split(strings.TrimRight(errOut.String(), "\n"), "\n")
		if lines[0] != "error: internal error: injected by the test (a bug in vq; --debug or VQ_DEBUG=1 shows where)" {
			t.Errorf("debug %v: report %q", debug, lines[0])
		}
		if stack := strings.Contains(errOut.String(), "goroutine "); stack != debug || !debug && len(lines) != 1 {
			t.Errorf("debug %v: stack shown %v in:\n%s", debug, stack, errOut.String())
		}
	}
}

// TestTUIPanicInTmux: vq panics in its TUI (the test's P key) on a real
// terminal: it exits 1 with one line on stderr, and the shell gets its
// terminal back (cooked mode, echo, the cursor shown).
func TestTUIPanicInTmux(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("drives a terminal")
	}
	ts := sandboxServer(t, sandbox.Options{})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := terminalEnv(map[string]string{asPanickyVQ: "1", "VQ_BASE_URL": ts, "VQ_API_KEY": sandbox.KeyAdmin})
	p := startTmuxBinary(t, self, 120, 40, env, "stty -a; echo stty done", "failures", "run_big")
	p.waitFor("the failures", shows("failures (350)"))
	p.keys("P")
	// The whole of stty's listing: the modes are after its first line.
	after := p.waitFor("the shell after vq", shows("EXIT=", "stty done"))
	if !strings.Contains(after, "EXIT=1\n") {
		t.Errorf("vq did not exit 1:\n%s", after)
	}
	report := regexp.MustCompile(`(?m)^error: internal error: injected by the test \(a bug in vq; --debug or VQ_DEBUG=1 shows where\)\nEXIT=1$`)
	if !report.MatchString(after) {
		t.Errorf("no one-line report right before the exit:\n%s", after)
	}
	for _, dump := range []string{"goroutine ", "Caught panic", "second line", "panic("} {
		if strings.Contains(after, dump) {
			t.Errorf("the screen shows %q:\n%s", dump, after)
		}
	}
	for _, mode := range []string{"icanon", "echo"} {
		if !regexp.MustCompile(`(?m)(^|\s)` + mode + `(\s|$)`).MatchString(after) {
			t.Errorf("the terminal was left without %s:\n%s", mode, after)
		}
	}
	if cursor := strings.TrimSpace(p.run("display", "-p", "-t", "vq", "#{cursor_flag}")); cursor != "1" {
		t.Errorf("the cursor was left hidden (cursor_flag %s)", cursor)
	}
}

// TestSpinnerBeforeASlowAnswerInTmux: against a slow server the TUI opens
// at once with a spinner naming the call, says that a key pressed then
// does nothing yet, and shows the answer when it comes.
func TestSpinnerBeforeASlowAnswerInTmux(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("drives a terminal")
	}
	ts := sandboxServer(t, sandbox.Options{Latency: 3 * time.Second})
	env := terminalEnv(map[string]string{"VQ_BASE_URL": ts, "VQ_API_KEY": sandbox.KeyAdmin})
	p := startTmux(t, 120, 40, env, "true", "failures", "run_big")
	p.waitFor("the spinner", shows("calling get_run_failures…", "esc cancel", "q quit"))
	p.keys("j")
	screen := p.waitFor("the ignored key", shows("(j ignored until the answer; esc cancels)"))
	if strings.Contains(screen, "failures (350)") {
		t.Fatalf("the answer came before the latency:\n%s", screen)
	}
	screen = p.waitFor("the answer", shows("✗ 350 of 480 checks failed", "failures (350)"))
	if strings.Contains(screen, "calling get_run_failures") {
		t.Errorf("the spinner stayed:\n%s", screen)
	}
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))
}

// sandboxServer serves a sandbox with those options for the test; it
// returns the base URL.
func sandboxServer(t *testing.T, o sandbox.Options) string {
	return cmdtest.NewSandbox(t, o).URL
}
