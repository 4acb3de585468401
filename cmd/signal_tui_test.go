package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/visualq/vq/format"
)

// TestSIGTERMRestoresTheTerminal runs the TUI in a tmux pane (a real
// terminal), sends vq SIGTERM while it waits for a key, and reads what the
// shell sees afterwards: exit 143, the terminal back in cooked mode with
// echo, and the cursor shown.
func TestSIGTERMRestoresTheTerminal(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed")
	}
	bin := buildVQ(t)
	s := newToolServer(t, 200, toolJSON(map[string]any{"ok": true, "tool": "get_run_failures", "summary": "2 failures in run_1.",
		"data":        map[string]any{"runId": "run_1"},
		"nextActions": []map[string]any{{"label": "Look at the diff", "tool": "get_diff_stats", "args": map[string]any{"runId": "run_1"}}}}))
	socket := fmt.Sprintf("vqsig-%d", os.Getpid())
	tm := func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	var env []string
	for k, v := range map[string]string{"VQ_BASE_URL": s.URL, "VQ_API_KEY": secretKey, "VQ_NO_KEYRING": "1", "VQ_CONFIG": t.TempDir() + "/c.json", "TERM": "xterm-256color"} {
		env = append(env, format.ShellQuote(k+"="+v))
	}
	script := "env " + strings.Join(env, " ") + " " + format.ShellQuote(bin) + " failures run_1; echo EXIT=$?; stty -a; sleep 60"
	tm("new-session", "-d", "-s", "vq", "-x", "120", "-y", "40", script)
	t.Cleanup(func() { exec.Command(tmux, "-L", socket, "kill-server").Run() })

	screen := func(until func(string) bool, what string) string {
		var last string
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if last = tm("capture-pane", "-p", "-t", "vq"); until(last) {
				return last
			}
		}
		t.Fatalf("the screen never showed %s:\n%s", what, last)
		return ""
	}
	screen(func(sc string) bool { return strings.Contains(sc, "Look at the diff") }, "the TUI")

	shell, _ := strconv.Atoi(strings.TrimSpace(tm("display", "-p", "-t", "vq", "#{pane_pid}")))
	children, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", shell, shell))
	vq, _ := strconv.Atoi(strings.TrimSpace(string(children)))
	if err != nil || vq == 0 {
		t.Fatalf("no vq process under the pane's shell: %q %v", children, err)
	}
	if err := syscall.Kill(vq, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	after := screen(func(sc string) bool { return strings.Contains(sc, "EXIT=") && strings.Contains(sc, "speed") }, "the shell after vq")
	if !strings.Contains(after, fmt.Sprintf("EXIT=%d", format.ExitTerminated)) {
		t.Errorf("vq did not exit %d:\n%s", format.ExitTerminated, after)
	}
	for _, mode := range []string{"icanon", "echo"} {
		// stty -a lists a cleared flag as -flag.
		if !regexp.MustCompile(`(?m)(^|\s)` + mode + `(\s|$)`).MatchString(after) {
			t.Errorf("the terminal was left without %s:\n%s", mode, after)
		}
	}
	if cursor := strings.TrimSpace(tm("display", "-p", "-t", "vq", "#{cursor_flag}")); cursor != "1" {
		t.Errorf("the cursor was left hidden (cursor_flag %s)", cursor)
	}
}
