package layout

import (
	"testing"

	"github.com/visualq/vq/internal/exitcode"
)

// The checks a run did not get to are never counted as passed: without
// progress an incomplete run has none known to have passed.
func TestChecksOfRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		data                   string
		verdict                int
		passed, failed, notRun int
	}{
		{`{"runId":"r","status":"passed","failed":0,"total":12}`, exitcode.OK, 12, 0, 0},
		{`{"runId":"r","failed":3,"total":12,"failures":[{"scenarioLabel":"a","viewport":"d"}]}`, exitcode.RunFailed, 9, 2, 0},
		{`{"runId":"r","status":"error","progress":{"current":6,"total":12},"failed":1,"total":12}`, exitcode.RunError, 5, 1, 6},
		{`{"runId":"r","status":"error","failed":1,"total":12}`, exitcode.RunError, 0, 1, 11},
		{`{"runId":"r","status":"cancelled","progress":{"current":40,"total":12},"failed":0,"total":12}`, exitcode.RunCancelled, 12, 0, 0},
		{`{"runId":"r","status":"running","progress":{"current":3,"total":12},"failed":0,"total":12}`, exitcode.Pending, 3, 0, 9},
		{`{"runId":"r","status":"exploded","failed":0,"total":2}`, exitcode.Pending, 0, 0, 2},
		{`{"runId":"r","status":"queued","url":"u"}`, exitcode.Pending, 0, 0, 0},
	} {
		c, ok := ChecksOf([]byte(tc.data))
		if !ok {
			t.Errorf("%s: no checks", tc.data)
			continue
		}
		passed, failed, notRun := c.Unlisted()
		if c.Verdict() != tc.verdict || passed != tc.passed || failed != tc.failed || notRun != tc.notRun {
			t.Errorf("%s: exit %d, %d passed, %d failed, %d not run; want %d, %d, %d, %d",
				tc.data, c.Verdict(), passed, failed, notRun, tc.verdict, tc.passed, tc.failed, tc.notRun)
		}
	}
	for _, data := range []string{`{"analysed":3,"total":5}`, `{"status":"running"}`, `{"runId":"r"}`} {
		if _, ok := ChecksOf([]byte(data)); ok {
			t.Errorf("%s read as a run", data)
		}
	}
}

func TestCheckDiffURL(t *testing.T) {
	t.Parallel()
	for data, want := range map[string]string{
		`{"runId":"r","failed":1,"total":1,"failures":[{"scenarioLabel":"a","viewport":"d","diffUrl":"https://x/d.png"}]}`:      "https://x/d.png",
		`{"runId":"r","scenarioLabel":"a","viewport":"d","mismatchPercent":2,"threshold":0.1,"diffImageUrl":"https://x/i.png"}`: "https://x/i.png",
	} {
		c, ok := ChecksOf([]byte(data))
		if !ok || len(c.Listed) != 1 || c.Listed[0].DiffURL != want {
			t.Errorf("%s: %+v", data, c)
		}
	}
}

// A count is a JSON number in any integral form; anything else the
// answer gives for one makes its verdict unreadable, never a pass.
func TestCountsAreJSONNumbersInAnyIntegralForm(t *testing.T) {
	t.Parallel()
	for count, want := range map[string]int{
		`5`: 5, `5.0`: 5, `1e1`: 10, `0.5e1`: 5, `50E-1`: 5, `-0`: 0, `0.0e7`: 0,
		`99999999999999999999`: maxCount, `1e400`: maxCount,
		`-1`: -1, `0.5`: -1, `1e-400`: -1, `-1e400`: -1, `"5"`: -1, `null`: -1, `true`: -1, `{}`: -1,
	} {
		c, ok := ChecksOf([]byte(`{"runId":"r","total":0,"failed":` + count + `}`))
		switch {
		case !ok:
			t.Errorf("failed %s: no checks", count)
		case want < 0 && (c.Verdict() != exitcode.NoVerdict || c.Unreadable == ""):
			t.Errorf("failed %s: verdict %d, want %d", count, c.Verdict(), exitcode.NoVerdict)
		case want >= 0 && (c.Failed != want || c.Unreadable != ""):
			t.Errorf("failed %s: read as %d (%q), want %d", count, c.Failed, c.Unreadable, want)
		}
	}
}

// A run's one-line account speaks of the run: changed checks, and why it
// ended in error when the server says (its error, error.message, message
// or reason), or that it did not.
func TestRunSummarySaysWhatChangedAndWhy(t *testing.T) {
	t.Parallel()
	for data, want := range map[string]string{
		`{"runId":"r","status":"failed","failed":3,"total":12}`:              "run r failed: 3 of 12 checks changed",
		`{"runId":"r","status":"error"}`:                                     "run r ended in error (the server gave no reason)",
		`{"runId":"r","status":"error","error":"the browser crashed"}`:       "run r ended in error: the browser crashed",
		`{"runId":"r","status":"error","error":{"message":"out of memory"}}`: "run r ended in error: out of memory",
		`{"runId":"r","status":"error","message":"no baseline"}`:             "run r ended in error: no baseline",
		`{"runId":"r","status":"error","reason":"deploy gone","error":null}`: "run r ended in error: deploy gone",
	} {
		c, ok := RunOf([]byte(data))
		if !ok || c.Summary() != want {
			t.Errorf("%s: %q (run %v), want %q", data, c.Summary(), ok, want)
		}
	}
}
