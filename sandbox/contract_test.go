package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/internal/testkit"
)

// anyValue in a fixture accepts whatever the server sends there (ids of
// rendered regions, retry delays): the field must still be present.
const anyValue = "<any>"

// matchFixture compares an answer with a hand-written fixture in testdata:
// the same JSON values, and the same object keys in the same order.
func matchFixture(t *testing.T, got []byte, fixture, baseURL string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	raw = []byte(strings.ReplaceAll(string(raw), "{{base}}", baseURL))
	var want, have any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("%s: %v", fixture, err)
	}
	if err := json.Unmarshal(got, &have); err != nil {
		t.Fatalf("answer is not JSON: %v\n%s", err, got)
	}
	if diffs := jsonDiff("", want, have); len(diffs) > 0 {
		t.Errorf("answer differs from %s:\n  %s\nanswer: %s", fixture, strings.Join(diffs, "\n  "), got)
	}
	wantKeys := keyOrder(t, raw)
	known := map[string]bool{}
	for _, k := range wantKeys {
		known[k] = true
	}
	// Keys under an <any> value are not in the fixture; leave them out.
	haveKeys := slices.DeleteFunc(keyOrder(t, got), func(k string) bool { return !known[k] })
	if !slices.Equal(dedupe(wantKeys), dedupe(haveKeys)) {
		t.Errorf("key order differs from %s:\nwant %v\ngot  %v", fixture, dedupe(wantKeys), dedupe(haveKeys))
	}
}

// dedupe drops repeats of a key path (array elements share paths) while
// keeping first-seen order.
func dedupe(keys []string) []string {
	seen := map[string]bool{}
	return slices.DeleteFunc(slices.Clone(keys), func(k string) bool {
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
}

func jsonDiff(path string, want, have any) []string {
	if want == anyValue {
		return nil
	}
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: want an object, got %v", path, have)}
		}
		var diffs []string
		for k, wv := range w {
			hv, ok := h[k]
			if !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: missing", path, k))
				continue
			}
			diffs = append(diffs, jsonDiff(path+"."+k, wv, hv)...)
		}
		for k := range h {
			if _, ok := w[k]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s.%s: unexpected", path, k))
			}
		}
		return diffs
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return []string{fmt.Sprintf("%s: want %v, got %v", path, want, have)}
		}
		var diffs []string
		for i := range w {
			diffs = append(diffs, jsonDiff(fmt.Sprintf("%s[%d]", path, i), w[i], h[i])...)
		}
		return diffs
	default:
		if !reflect.DeepEqual(want, have) {
			return []string{fmt.Sprintf("%s: want %#v, got %#v", path, want, have)}
		}
		return nil
	}
}

// TestContract checks each tool and gate against the contract's shapes (docs/contract.md) and the
// HTTP status table, one fresh sandbox per case.
func TestContract(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		key     string
		tool    string
		args    map[string]any
		extra   []string // top-level fields: project, environment
		status  int
		fixture string
	}{
		{"failed run", KeyAdmin, "get_run_failures", map[string]any{"runId": "run_abc"}, nil, 200, "get_run_failures.run_abc.json"},
		{"passing run", KeyAdmin, "get_run_failures", map[string]any{"runId": "run_pass"}, nil, 200, "get_run_failures.run_pass.json"},
		{"known project and environment", KeyAdmin, "get_run_failures", map[string]any{"runId": "run_abc"}, []string{"project", "docs-site", "environment", "production"}, 200, "get_run_failures.run_abc.json"},
		{"unknown run", KeyAdmin, "get_run_failures", map[string]any{"runId": "run_nope"}, nil, 400, "get_run_failures.unknown_run.json"},
		{"missing argument", KeyAdmin, "get_run_failures", map[string]any{}, nil, 400, "validation_error.missing_arg.json"},
		{"mistyped argument", KeyAdmin, "get_run_failures", map[string]any{"runId": 42}, nil, 400, "validation_error.mistyped_arg.json"},
		{"unknown environment", KeyAdmin, "get_run_failures", map[string]any{"runId": "run_abc"}, []string{"environment", "qa"}, 422, "project_resolution_error.json"},
		{"unknown tool", KeyAdmin, "get_run_failure", map[string]any{}, nil, 404, "not_found.json"},
		{"diff stats", KeyAdmin, "get_diff_stats", map[string]any{"runId": "run_abc", "scenarioLabel": "Product page", "viewport": "tablet"}, nil, 200, "get_diff_stats.json"},
		{"write without confirm", KeyAdmin, "approve_vrt_results", map[string]any{"runId": "run_abc"}, nil, 400, "confirm_required.json"},
		{"write with confirm false", KeyAdmin, "approve_vrt_results", map[string]any{"runId": "run_abc", "confirm": false}, nil, 400, "confirm_required.json"},
		{"approve one check", KeyAdmin, "approve_vrt_results", map[string]any{"runId": "run_abc", "scenarioLabel": "Homepage", "viewport": "desktop", "confirm": true}, nil, 200, "approve_vrt_results.json"},
		{"read-only key writes", KeyReadOnly, "approve_vrt_results", map[string]any{"runId": "run_abc", "confirm": true}, nil, 403, "scope_denied.json"},
		{"free plan tracks", KeyFree, "tracking_get_plan", map[string]any{}, nil, 403, "plan_gate.json"},
		{"find scenarios", KeyAdmin, "frt_find_scenarios", map[string]any{"query": "add products to cart"}, nil, 200, "frt_find_scenarios.json"},
		{"create with tracking clause", KeyAdmin, "create_frt_scenario", map[string]any{"goal": "Click the newsletter signup button in the footer and verify the tracking payload", "startPath": "/", "confirm": true}, nil, 200, "create_frt_scenario.created_tracking.json"},
		{"create resolves existing", KeyAdmin, "create_frt_scenario", map[string]any{"goal": "Add a product to the cart from the product page", "confirm": true}, nil, 200, "create_frt_scenario.existing.json"},
		{"create with empty goal", KeyAdmin, "create_frt_scenario", map[string]any{"goal": "  ", "startPath": "/", "confirm": true}, nil, 422, "create_frt_scenario.empty_goal.json"},
		{"create without start path", KeyAdmin, "create_frt_scenario", map[string]any{"goal": "Open the store locator", "confirm": true}, nil, 422, "create_frt_scenario.no_start_path.json"},
		{"create fails to save", KeyAdmin, "create_frt_scenario", map[string]any{"goal": "Click the unsaveable widget", "startPath": "/", "confirm": true}, nil, 422, "create_frt_scenario.save_failed.json"},
		{"tracking plan", KeyAdmin, "tracking_get_plan", map[string]any{"scenarioId": "scn_login"}, nil, 200, "tracking_get_plan.json"},
		{"start tracking run", KeyAdmin, "run_tracking", map[string]any{"scenarioId": "scn_login"}, nil, 200, "run_tracking.queued.json"},
		{"start proof", KeyAdmin, "tracking_prove_jira_ticket", map[string]any{"ticket": "bn-470"}, nil, 200, "tracking_prove_jira_ticket.queued.json"},
		{"unknown ticket", KeyAdmin, "tracking_prove_jira_ticket", map[string]any{"ticket": "BN-999"}, nil, 400, "tracking_prove_jira_ticket.unknown_ticket.json"},
		{"unknown job", KeyAdmin, "get_job_status", map[string]any{"jobId": "job_424242"}, nil, 400, "get_job_status.unknown_job.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testServer(t, Options{})
			a := invoke(t, ts, tt.key, tt.tool, tt.args, tt.extra...)
			if a.status != tt.status {
				t.Errorf("status = %d, want %d\n%s", a.status, tt.status, a.body)
			}
			if ct := a.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			matchFixture(t, a.body, tt.fixture, ts.URL)
		})
	}
}

// TestProofJobs runs each seeded ticket's proof to the end and checks the
// final answer, including the failed proof's 422 that still carries data.
func TestProofJobs(t *testing.T) {
	tests := []struct {
		ticket  string
		status  int
		fixture string
	}{
		{"BN-470", 200, "proof.BN-470.json"},
		{"BN-471", 422, "proof.BN-471.json"},
		{"BN-472", 200, "proof.BN-472.json"},
		{"BN-473", 200, "proof.BN-473.json"},
		{"BN-474", 422, "proof.BN-474.json"},
	}
	for _, tt := range tests {
		t.Run(tt.ticket, func(t *testing.T) {
			t.Parallel()
			ts := testServer(t, Options{JobStep: 5 * time.Millisecond})
			started := invoke(t, ts, KeyAdmin, "tracking_prove_jira_ticket", map[string]any{"ticket": tt.ticket})
			if started.status != http.StatusOK {
				t.Fatalf("start: %d %s", started.status, started.body)
			}
			final := waitForJob(t, ts, "job_000001")
			if final.status != tt.status {
				t.Errorf("status = %d, want %d", final.status, tt.status)
			}
			matchFixture(t, final.body, tt.fixture, ts.URL)
		})
	}
}

func TestTrackingJob(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{JobStep: 5 * time.Millisecond})
	invoke(t, ts, KeyAdmin, "run_tracking", map[string]any{"scenarioId": "scn_login"})
	matchFixture(t, waitForJob(t, ts, "job_000001").body, "run_tracking.completed.json", ts.URL)
}

// waitForJob polls get_job_status until the job is over.
func waitForJob(t *testing.T, ts *httptest.Server, jobID string) answer {
	t.Helper()
	deadline := time.Now().Add(testkit.Patience)
	for time.Now().Before(deadline) {
		a := invoke(t, ts, KeyAdmin, "get_job_status", map[string]any{"jobId": jobID})
		var st struct {
			Data struct {
				Status string `json:"status"`
			} `json:"data"`
		}
		if err := json.Unmarshal(a.body, &st); err != nil {
			t.Fatal(err)
		}
		if st.Data.Status != "queued" && st.Data.Status != "running" {
			return a
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s still running after %s", jobID, testkit.Patience)
	return answer{}
}
