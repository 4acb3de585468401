package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/format"
)

// TestWatchLiveViewInTmux runs the real binary in a tmux pane (a real
// terminal) and reads the screen: one bar line per job redrawn in place while
// the jobs run, then a one-line summary per job and the answers below.
func TestWatchLiveViewInTmux(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "vq")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	s := newJobServer(t, step{}, map[string][]step{
		"job_t1": {jobStep("job_t1", "queued", 0, 0, ""), jobStep("job_t1", "running", 3, 10, "Comparing screenshots")},
		"job_t2": {jobStep("job_t2", "running", 1, 2, ""), jobStep("job_t2", "completed", 2, 2, "")},
	})
	socket := fmt.Sprintf("vqtest-%d", os.Getpid())
	run := func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	var line []string
	for k, v := range map[string]string{"VQ_BASE_URL": s.URL, "VQ_API_KEY": "k", "VQ_NO_KEYRING": "1", "VQ_CONFIG": dir + "/c.json", "TERM": "xterm-256color"} {
		line = append(line, format.ShellQuote(k+"="+v))
	}
	script := "env " + strings.Join(line, " ") + " " + format.ShellQuote(bin) + " watch job_t1 job_t2 --interval 20ms; echo EXIT=$?; sleep 60"
	run("new-session", "-d", "-s", "vq", "-x", "100", "-y", "30", script)
	t.Cleanup(func() { exec.Command(tmux, "-L", socket, "kill-server").Run() })

	screen := func(until func(string) bool, what string) string {
		var last string
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if last = run("capture-pane", "-p", "-t", "vq"); until(last) {
				return last
			}
		}
		t.Fatalf("the screen never showed %s:\n%s", what, last)
		return ""
	}

	live := screen(func(sc string) bool {
		return strings.Contains(sc, "3/10  Comparing screenshots") && strings.Contains(sc, "✓ job_t2 completed 2/2")
	}, "job_t1 running with job_t2 done")
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

	s.mu.Lock()
	s.jobs["job_t1"] = []step{jobStep("job_t1", "completed", 10, 10, "Done")}
	s.mu.Unlock()
	final := screen(func(sc string) bool { return strings.Contains(sc, "EXIT=") }, "the end of the watch")
	lines := strings.Split(strings.TrimRight(final, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "✓ job_t1 completed 10/10 Done (") || !strings.HasPrefix(lines[1], "✓ job_t2 completed 2/2 (") {
		t.Errorf("summary lines:\n%s", final)
	}
	if lines[2] != "== job job_t1 ==" || !strings.Contains(final, "\nEXIT=0") {
		t.Errorf("screen after the watch:\n%s", final)
	}
}
