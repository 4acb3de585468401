package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/sandbox"
)

// tmuxPane is a command running in a detached tmux session of its own
// (a private tmux server), so a test reads the screen as a person sees it.
type tmuxPane struct {
	t            *testing.T
	tmux, socket string
}

var tmuxSessions atomic.Int32

// terminalEnv is env as a person's terminal gives it to vq: xterm's TERM,
// and neither the machine's keyring nor its config file.
func terminalEnv(env map[string]string) map[string]string {
	env["VQ_NO_KEYRING"], env["VQ_CONFIG"], env["TERM"] = "1", os.DevNull, "xterm-256color"
	return env
}

// startTmux runs vq with args and env in a width×height pane; after vq
// exits the pane prints EXIT=<code>, runs the shell command then (if any)
// and stays. It skips without tmux.
func startTmux(t *testing.T, width, height int, env map[string]string, then string, args ...string) *tmuxPane {
	t.Helper()
	return startTmuxBinary(t, vqBinary(t), width, height, env, then, args...)
}

// sandboxTUI is vq with args in a width×height pane, on a person's
// terminal, against a sandbox of its own started with opts: the pane and
// the sandbox. It skips under -short.
func sandboxTUI(t *testing.T, opts sandbox.Options, width, height int, args ...string) (*tmuxPane, *cmdtest.Sandbox) {
	t.Helper()
	if testing.Short() {
		t.Skip("drives a terminal")
	}
	s := cmdtest.NewSandbox(t, opts)
	return startTmux(t, width, height, terminalEnv(s.Env()), "true", args...), s
}

// startTmuxBinary is startTmux with another binary as vq.
func startTmuxBinary(t *testing.T, bin string, width, height int, env map[string]string, then string, args ...string) *tmuxPane {
	t.Helper()
	return startTmuxPipeline(t, bin, width, height, env, "", then, args...)
}

// startTmuxPiped is startTmux with vq's stdout piped into the shell
// command pipe; EXIT is then the pipe's.
func startTmuxPiped(t *testing.T, width, height int, env map[string]string, pipe string, args ...string) *tmuxPane {
	t.Helper()
	return startTmuxPipeline(t, vqBinary(t), width, height, env, pipe, "true", args...)
}

func startTmuxPipeline(t *testing.T, bin string, width, height int, env map[string]string, pipe, then string, args ...string) *tmuxPane {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed")
	}
	p := &tmuxPane{t: t, tmux: tmux, socket: fmt.Sprintf("vqtest-%d-%d", os.Getpid(), tmuxSessions.Add(1))}
	words := []string{"env", "-u", "NO_COLOR", "-u", "VQ_NO_TUI", "-u", "PAGER", "-u", "VQ_PAGER", "-u", "LESS"}
	for k, v := range env {
		words = append(words, textsafe.ShellQuote(k+"="+v))
	}
	words = append(words, textsafe.ShellQuote(bin))
	for _, a := range args {
		words = append(words, textsafe.ShellQuote(a))
	}
	if pipe != "" {
		words = append(words, "|", pipe)
	}
	script := strings.Join(words, " ") + "; echo EXIT=$?; " + then + "; sleep 60"
	p.run("new-session", "-d", "-s", "vq", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), script)
	t.Cleanup(func() { exec.Command(tmux, "-L", p.socket, "kill-server").Run() })
	return p
}

// pid is the process id of vq, the child of the pane's shell.
func (p *tmuxPane) pid() int {
	p.t.Helper()
	shell, _ := strconv.Atoi(strings.TrimSpace(p.run("display", "-p", "-t", "vq", "#{pane_pid}")))
	children, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", shell, shell))
	vq, _ := strconv.Atoi(strings.TrimSpace(string(children)))
	if err != nil || vq == 0 {
		p.t.Fatalf("no vq process under the pane's shell: %q %v", children, err)
	}
	return vq
}

func (p *tmuxPane) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command(p.tmux, append([]string{"-L", p.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys types into the pane.
func (p *tmuxPane) keys(keys ...string) {
	p.run(append([]string{"send-keys", "-t", "vq"}, keys...)...)
}

// waitFor returns the visible screen once ok holds for it; the deadline
// only bounds a hung run, it measures nothing.
func (p *tmuxPane) waitFor(what string, ok func(string) bool) string {
	p.t.Helper()
	var screen string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if screen = p.run("capture-pane", "-p", "-t", "vq"); ok(screen) {
			return screen
		}
	}
	p.t.Fatalf("the screen never showed %s:\n%s", what, screen)
	return ""
}

// shows is a waitFor condition: every text is on the screen.
func shows(texts ...string) func(string) bool {
	return func(screen string) bool {
		for _, s := range texts {
			if !strings.Contains(screen, s) {
				return false
			}
		}
		return true
	}
}

// TestDemoInTmuxOpensTheTUI is the README's main job on a terminal: the
// embedded sandbox and the TUI on its failed run, quit with q, exit 0.
func TestDemoInTmuxOpensTheTUI(t *testing.T) {
	t.Parallel()
	p := startTmux(t, 100, 30, terminalEnv(map[string]string{}), "true", "demo")
	p.waitFor("the triage TUI", shows("✗ 3 of 12 checks failed", "failures (3)", "enter inspect", "q quit"))
	p.keys("Enter")
	p.waitFor("the chained diff", shows("run_abc › Inspect Homepage desktop", "changedPixels"))
	p.keys("q")
	p.waitFor("vq's exit and where its commands run now", shows("start one with vq sandbox", "EXIT=0"))
}
