package cmd

import (
	"strings"
	"testing"

	"github.com/visualq/vq/internal/testkit"
)

// TestWatchLiveViewInTmux runs the real binary in a tmux pane (a real
// terminal) and reads the screen: one bar line per job redrawn in place while
// the jobs run, then a one-line summary per job and the answers below.
func TestWatchLiveViewInTmux(t *testing.T) {
	t.Parallel()
	s := testkit.NewJobServer(t, testkit.Reply{}, map[string][]testkit.Reply{
		"job_t1": {testkit.JobStep("job_t1", "queued", 0, 0, ""), testkit.JobStep("job_t1", "running", 3, 10, "Comparing screenshots")},
		"job_t2": {testkit.JobStep("job_t2", "running", 1, 2, ""), testkit.JobStep("job_t2", "completed", 2, 2, "")},
	})
	p := startTmux(t, 100, 30, map[string]string{"VQ_BASE_URL": s.URL, "VQ_API_KEY": "k", "VQ_NO_KEYRING": "1", "VQ_CONFIG": t.TempDir() + "/c.json", "TERM": "xterm-256color"},
		"true", "watch", "job_t1", "job_t2", "--interval", "20ms")

	live := p.waitFor("job_t1 running with job_t2 done", func(sc string) bool {
		return strings.Contains(sc, "3/10  Comparing screenshots") && strings.Contains(sc, "✓ job_t2 completed 2/2")
	})
	var bar string
	for _, l := range strings.Split(live, "\n") {
		if strings.HasPrefix(l, "job_t1 ") {
			bar = l
		}
	}
	// 3/10 of a 24-cell bar: 7 full cells, 17 empty ones, then the status.
	if !strings.HasPrefix(bar, "job_t1  "+strings.Repeat("█", 7)+strings.Repeat("░", 17)+"  running") || !strings.Contains(bar, "running  3/10  Comparing screenshots") {
		t.Errorf("bar line %q", bar)
	}
	if n := strings.Count(live, "job_t1"); n != 1 {
		t.Errorf("job_t1 shows on %d lines, want 1 (redrawn in place):\n%s", n, live)
	}

	s.SetSteps("job_t1", testkit.JobStep("job_t1", "completed", 10, 10, "Done"))
	final := p.waitFor("the end of the watch", shows("EXIT="))
	lines := strings.Split(strings.TrimRight(final, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "✓ job_t1 completed 10/10 Done (") || !strings.HasPrefix(lines[1], "✓ job_t2 completed 2/2 (") {
		t.Errorf("summary lines:\n%s", final)
	}
	if lines[2] != "== job job_t1 ==" || !strings.Contains(final, "\nEXIT=0") {
		t.Errorf("screen after the watch:\n%s", final)
	}
}
