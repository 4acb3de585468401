package ui

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTUIInTmux runs the real vq binary in a 120×40 tmux pane against a
// test server: it starts on get_run_failures, chains into a diff with
// Enter, goes back with Esc (no call), quits with q, and checks that the
// last screen stayed in the scrollback and the exit code is the answer's.
func TestTUIInTmux(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	if testing.Short() {
		t.Skip("builds vq and drives a terminal")
	}
	dir := t.TempDir()
	vq := filepath.Join(dir, "vq")
	build := exec.Command("go", "build", "-o", vq, ".")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	s := triageServer(t, 3)

	sock := filepath.Join(dir, "tmux.sock")
	tmux := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	script := "env -u NO_COLOR -u VQ_NO_TUI -u VQ_ENDPOINT -u VQ_TRANSPORT" +
		" VQ_BASE_URL=" + s.URL + " VQ_API_KEY=test-key VQ_NO_KEYRING=1" +
		" VQ_CONFIG=" + filepath.Join(dir, "config.json") + " HOME=" + dir +
		" " + vq + " failures run_abc; echo \"vq exited $?\"; sleep 600"
	tmux("new-session", "-d", "-s", "vq", "-x", "120", "-y", "40", script)
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() }) //nolint:errcheck

	// screen waits until the pane (with its scrollback) satisfies ok; the
	// deadline only bounds a hung run, it measures nothing.
	screen := func(what string, ok func(string) bool) string {
		t.Helper()
		var text string
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if text = tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "vq"); ok(text) {
				return text
			}
		}
		t.Fatalf("pane never showed %s:\n%s", what, text)
		return ""
	}
	has := func(wants ...string) func(string) bool {
		return func(text string) bool {
			for _, w := range wants {
				if !strings.Contains(text, w) {
					return false
				}
			}
			return true
		}
	}

	screen("the failures", has("✓ ok  get_run_failures", "3 of 13 checks failed.", "failures (3)", "› 1  Inspect Page 1 desktop"))
	tmux("send-keys", "-t", "vq", "Enter")
	screen("the diff", has("get_run_failures › Inspect Page 1 desktop", "changedPixels", "Approve Page 1 desktop"))
	calls := s.received()
	if len(calls) != 2 || calls[1].Tool != "get_diff_stats" || calls[1].Args["scenarioLabel"] != "Page 1" {
		t.Fatalf("server calls = %+v", calls)
	}

	tmux("send-keys", "-t", "vq", "Escape")
	screen("the failures again", func(text string) bool {
		return has("failures (3)")(text) && !strings.Contains(text, "changedPixels")
	})
	if n := len(s.received()); n != 2 {
		t.Errorf("Esc sent a call: %d calls", n)
	}

	tmux("send-keys", "-t", "vq", "q")
	text := screen("the exit", has("vq exited 0"))
	final := text[:strings.Index(text, "vq exited 0")]
	for _, want := range []string{"✓ ok  get_run_failures", "3 of 13 checks failed.", "Page 3", "Inspect Page 3 desktop"} {
		if !strings.Contains(final, want) {
			t.Errorf("scrollback lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(final, "3 of 13 checks failed."); n != 1 {
		t.Errorf("the scrollback holds %d copies of the failures screen, want 1:\n%s", n, text)
	}
	if strings.Contains(final, "q quit") {
		t.Errorf("the key help stayed in the scrollback:\n%s", text)
	}
}
