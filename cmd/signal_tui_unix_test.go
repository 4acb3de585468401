//go:build unix

package cmd

import (
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
)

// TestSIGTERMRestoresTheTerminal runs the TUI in a tmux pane (a real
// terminal), sends vq SIGTERM while it waits for a key, and reads what the
// shell sees afterwards: exit 143, the terminal back in cooked mode with
// echo, and the cursor shown.
func TestSIGTERMRestoresTheTerminal(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(200, testkit.OK("get_run_failures", "2 failures in run_1.", map[string]any{"runId": "run_1"},
		testkit.NextActions(map[string]any{"label": "Look at the diff", "tool": "get_diff_stats", "args": map[string]any{"runId": "run_1"}}))))
	p := startTmux(t, 120, 40, map[string]string{"VQ_BASE_URL": s.URL, "VQ_API_KEY": secretKey, "VQ_NO_KEYRING": "1", "VQ_CONFIG": t.TempDir() + "/c.json", "TERM": "xterm-256color"},
		"stty -a; echo stty done", "failures", "run_1")
	p.waitFor("the TUI", shows("Look at the diff"))
	if err := syscall.Kill(p.pid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The whole of stty's listing, not its first line: the modes are on
	// the lines after it.
	after := p.waitFor("the shell after vq", shows("EXIT=", "stty done"))
	if !strings.Contains(after, fmt.Sprintf("EXIT=%d", exitcode.Terminated)) {
		t.Errorf("vq did not exit %d:\n%s", exitcode.Terminated, after)
	}
	for _, mode := range []string{"icanon", "echo"} {
		// stty -a lists a cleared flag as -flag.
		if !regexp.MustCompile(`(?m)(^|\s)` + mode + `(\s|$)`).MatchString(after) {
			t.Errorf("the terminal was left without %s:\n%s", mode, after)
		}
	}
	if cursor := strings.TrimSpace(p.run("display", "-p", "-t", "vq", "#{cursor_flag}")); cursor != "1" {
		t.Errorf("the cursor was left hidden (cursor_flag %s)", cursor)
	}
}
