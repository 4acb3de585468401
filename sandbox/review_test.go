package sandbox

import (
	"net/http"
	"testing"

	"github.com/visualq/vq/internal/fixture"
)

// TestRunBigChecksAreReviewedOneByOne holds the sandbox to what triage in
// the TUI needs of it: every run_big check has diff stats and images, an
// approval of one check approves that check alone, the failures list
// leaves it out from then on, and its diff says it is approved.
func TestRunBigChecksAreReviewedOneByOne(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{Rate: -1})
	checks := fixture.Checks(350)
	for _, ch := range []fixture.Check{checks[0], checks[173], checks[349]} {
		args := map[string]any{"runId": "run_big", "scenarioLabel": ch.ScenarioLabel, "viewport": ch.Viewport}
		stats := decodeData[diffStats](t, callTool(t, ts, http.StatusOK, "get_diff_stats", args))
		if img := fetchPNG(t, stats.DiffImageURL); img.Bounds().Size() != viewportSizes[ch.Viewport] {
			t.Errorf("%s/%s: diff image %v", ch.ScenarioLabel, ch.Viewport, img.Bounds())
		}
		confirmed := map[string]any{"confirm": true}
		for k, v := range args {
			confirmed[k] = v
		}
		approved := decodeData[approveResult](t, callTool(t, ts, http.StatusOK, "approve_vrt_results", confirmed))
		if approved.Approved != 1 {
			t.Errorf("%s/%s: approved %d checks, want 1", ch.ScenarioLabel, ch.Viewport, approved.Approved)
		}
		if stats := decodeData[diffStats](t, callTool(t, ts, http.StatusOK, "get_diff_stats", args)); !stats.Approved {
			t.Errorf("%s/%s: the diff does not say it is approved", ch.ScenarioLabel, ch.Viewport)
		}
	}
	failures := decodeData[runFailures](t, callTool(t, ts, http.StatusOK, "get_run_failures", map[string]any{"runId": "run_big"}))
	if failures.Failed != 347 || len(failures.Failures) != 347 {
		t.Errorf("run_big lists %d failures (failed %d), want 347", len(failures.Failures), failures.Failed)
	}
	for _, f := range failures.Failures {
		if f.ScenarioLabel == checks[173].ScenarioLabel && f.Viewport == checks[173].Viewport {
			t.Errorf("an approved check is still listed: %+v", f)
		}
	}
}
