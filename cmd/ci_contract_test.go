package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/internal/exitcode"
)

// Asked how a run is doing, a run still going is no verdict: vq ci status
// exits pending (8), never 0; a run just started by run-vrt is what was
// asked for, and exits 0. Both say how to wait for the verdict.
func TestPendingIsNotPassing(t *testing.T) {
	s := newCISandbox(t, time.Hour)
	out, stderr, exit := runVQ(t, s.env(), "ci", "run-vrt", "branch=main", "--jq", ".data.runId")
	if exit != 0 || !strings.Contains(stderr, "vq ci status run_ci_0001 --wait") {
		t.Fatalf("run-vrt: exit %d, stderr %s", exit, stderr)
	}
	runID := strings.TrimSpace(out)
	for _, args := range [][]string{{"ci", "status", runID}, {"ci", "status", runID, "--json"}} {
		_, stderr, exit = runVQ(t, s.env(), args...)
		if exit != exitcode.Pending || !strings.Contains(stderr, "wait for its verdict with: vq ci status "+runID+" --wait") {
			t.Errorf("%v: exit %d, want %d (pending); stderr %s", args, exit, exitcode.Pending, stderr)
		}
	}
}
