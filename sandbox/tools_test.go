package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
)

// callTool invokes a tool with the admin key and decodes the answer, failing
// the test on an unexpected status.
func callTool(t *testing.T, ts *httptest.Server, status int, tool string, args map[string]any) *api.ToolResponse {
	t.Helper()
	a := invoke(t, ts, KeyAdmin, tool, args)
	if a.status != status {
		t.Fatalf("%s: status %d, want %d: %s", tool, a.status, status, a.body)
	}
	var resp api.ToolResponse
	if err := json.Unmarshal(a.body, &resp); err != nil {
		t.Fatal(err)
	}
	return &resp
}

func decodeData[T any](t *testing.T, resp *api.ToolResponse) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(resp.Data, &v); err != nil {
		t.Fatalf("data: %v\n%s", err, resp.Data)
	}
	return v
}

func TestApproveChangesLaterAnswers(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{})
	approve := func(args map[string]any) {
		args["runId"], args["confirm"] = "run_abc", true
		callTool(t, ts, http.StatusOK, "approve_vrt_results", args)
	}
	approve(map[string]any{"scenarioLabel": "Homepage", "viewport": "desktop"})
	resp := callTool(t, ts, http.StatusOK, "get_run_failures", map[string]any{"runId": "run_abc"})
	if resp.Summary != "2 of 12 checks failed." || len(resp.NextActions) != 2 || resp.NextActions[0].Args["scenarioLabel"] != "Checkout" {
		t.Errorf("after approving Homepage: %q, next %v", resp.Summary, resp.NextActions)
	}
	stats := callTool(t, ts, http.StatusOK, "get_diff_stats", map[string]any{"runId": "run_abc", "scenarioLabel": "Homepage", "viewport": "desktop"})
	if !decodeData[diffStats](t, stats).Approved || stats.NextActions[0].Tool == "approve_vrt_results" {
		t.Errorf("diff stats of an approved check: %s %v", stats.Data, stats.NextActions)
	}

	approve(map[string]any{})
	resp = callTool(t, ts, http.StatusOK, "get_run_failures", map[string]any{"runId": "run_abc"})
	if resp.Summary != "0 of 12 checks failed." || len(resp.NextActions) != 0 {
		t.Errorf("after approving the run: %q, next %v", resp.Summary, resp.NextActions)
	}
	resp = callTool(t, ts, http.StatusBadRequest, "approve_vrt_results",
		map[string]any{"runId": "run_abc", "scenarioLabel": "Nope", "confirm": true})
	if !strings.Contains(resp.ErrorMessage(), `scenarioLabel "Nope"`) {
		t.Errorf("unknown check: %s", resp.ErrorMessage())
	}
	// Another sandbox keeps its own state.
	other := testServer(t, Options{})
	if resp := callTool(t, other, http.StatusOK, "get_run_failures", map[string]any{"runId": "run_abc"}); resp.Summary != "3 of 12 checks failed." {
		t.Errorf("fresh sandbox: %q", resp.Summary)
	}
}

func TestLargeRuns(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{})
	big := callTool(t, ts, http.StatusOK, "get_run_failures", map[string]any{"runId": "run_big"})
	if data := decodeData[runFailures](t, big); data.Failed != 350 || len(data.Failures) != 350 || len(big.NextActions) != maxInspectActions {
		t.Errorf("run_big: failed %d, %d failures, %d next actions", data.Failed, len(data.Failures), len(big.NextActions))
	}

	first := invoke(t, ts, KeyAdmin, "get_run_failures", map[string]any{"runId": "run_100k"})
	second := invoke(t, ts, KeyAdmin, "get_run_failures", map[string]any{"runId": "run_100k"})
	if !bytes.Equal(first.body, second.body) {
		t.Error("run_100k answers differ between calls")
	}
	if n := len(first.body); n < 14<<20 || n > 20<<20 {
		t.Errorf("run_100k body is %d bytes, want about 16 MB (8 MB of checks, 8 MB of diff links)", n)
	}
	// Decoded once: 8 MB of JSON is slow to parse under -race.
	var resp struct {
		Summary string      `json:"summary"`
		Data    runFailures `json:"data"`
	}
	if err := json.Unmarshal(first.body, &resp); err != nil {
		t.Fatal(err)
	}
	data := resp.Data
	if resp.Summary != "100000 of 120000 checks failed." || len(data.Failures) != 100_000 {
		t.Fatalf("run_100k: %q with %d failures", resp.Summary, len(data.Failures))
	}
	seen := map[string]bool{}
	for _, f := range data.Failures {
		key := f.ScenarioLabel + "/" + f.Viewport
		if seen[key] || f.MismatchPercent < 0.1 || f.MismatchPercent > 25 {
			t.Fatalf("bad generated check %+v (duplicate: %v)", f, seen[key])
		}
		seen[key] = true
	}
	// An approval drops the cached answer.
	last := data.Failures[len(data.Failures)-1]
	callTool(t, ts, http.StatusOK, "approve_vrt_results", map[string]any{
		"runId": "run_100k", "scenarioLabel": last.ScenarioLabel, "viewport": last.Viewport, "confirm": true})
	after := invoke(t, ts, KeyAdmin, "get_run_failures", map[string]any{"runId": "run_100k"})
	if !bytes.HasPrefix(after.body, []byte(`{"ok":true,"tool":"get_run_failures","summary":"99999 of 120000 checks failed."`)) {
		t.Errorf("after one approval: %.100s", after.body)
	}
}

// TestJobProgress watches a job go queued, running one step at a time and
// completed. The sandbox's clock is the test's (testing/synctest), which
// looks halfway through each step: polls on the machine's clock saw a step
// only when the machine was quick enough to look within it.
func TestJobProgress(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const step = time.Second
		h := New(Options{JobStep: step, Rate: -1}).Handler()
		call := func(tool string, args map[string]any) jobState {
			t.Helper()
			body, _ := json.Marshal(map[string]any{"tool": tool, "args": args})
			r := httptest.NewRequest(http.MethodPost, "/api/mcp/v1/invoke", bytes.NewReader(body))
			r.Header.Set("Authorization", "Bearer "+KeyAdmin)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			var resp api.ToolResponse
			if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || w.Code != http.StatusOK {
				t.Fatalf("%s: HTTP %d %v: %s", tool, w.Code, err, w.Body)
			}
			return decodeData[jobState](t, &resp)
		}
		if st := call("tracking_prove_jira_ticket", map[string]any{"ticket": "BN-470"}); st.Status != "queued" || st.JobID != "job_000001" {
			t.Fatalf("the proof's answer: %+v", st)
		}
		time.Sleep(step / 2)
		for i := 0; i <= len(proofSteps)+1; i++ {
			st := call("get_job_status", map[string]any{"jobId": "job_000001"})
			var ok bool
			switch p := st.Progress; {
			case i == 0:
				ok = st.Status == "queued" && p != nil && p.Current == 0 && p.Total == len(proofSteps)
			case i <= len(proofSteps):
				ok = st.Status == "running" && p != nil && p.Current == i && p.Total == len(proofSteps) && p.Message == proofSteps[i-1]
			default:
				ok = st.Status == "completed" && p == nil && st.Result != nil
			}
			if !ok {
				t.Errorf("%s into the job: %s %+v", time.Duration(i)*step+step/2, st.Status, st.Progress)
			}
			time.Sleep(step)
		}
	})
}

// TestProofMarkdownIsServedByteForByte checks the markdown traps (trailing
// spaces, no final newline, JIRA syntax, unicode) survive the wire.
func TestProofMarkdownIsServedByteForByte(t *testing.T) {
	t.Parallel()
	md, ok := ProofMarkdown("BN-470")
	if !ok {
		t.Fatal("no markdown for BN-470")
	}
	for _, want := range []string{"payload  \n", "||Event||", "|add_to_cart|", "{code:json}", "{{window.dataLayer.push}}", "é", "✓", "—"} {
		if !strings.Contains(md, want) {
			t.Errorf("BN-470 markdown lacks %q", want)
		}
	}
	if strings.HasSuffix(md, "\n") {
		t.Error("BN-470 markdown must not end with a newline")
	}
	if md471, _ := ProofMarkdown("BN-471"); !strings.HasSuffix(md471, "\n") {
		t.Error("BN-471 markdown should end with a newline")
	}
	if _, ok := ProofMarkdown("BN-474"); ok {
		t.Error("BN-474 never produces a proof")
	}

	ts := testServer(t, Options{JobStep: time.Millisecond})
	callTool(t, ts, http.StatusOK, "tracking_prove_jira_ticket", map[string]any{"ticket": "BN-470"})
	var resp api.ToolResponse
	if err := json.Unmarshal(waitForJob(t, ts, "job_000001").body, &resp); err != nil {
		t.Fatal(err)
	}
	st := decodeData[struct {
		Result struct {
			JiraMarkdown string `json:"jiraMarkdown"`
		} `json:"result"`
	}](t, &resp)
	if st.Result.JiraMarkdown != md {
		t.Errorf("jiraMarkdown on the wire differs:\n%q\nwant\n%q", st.Result.JiraMarkdown, md)
	}
}

func TestCreatedScenarioIsFoundAndResolved(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{})
	goal := map[string]any{"goal": "Open the store locator on /stores and pick Lyon", "confirm": true}
	created := decodeData[scenarioCreation](t, callTool(t, ts, http.StatusOK, "create_frt_scenario", goal))
	if created.Resolved != "created" || created.Scenario.StartPath != "/stores" {
		t.Fatalf("created: %+v", created)
	}
	again := decodeData[scenarioCreation](t, callTool(t, ts, http.StatusOK, "create_frt_scenario", goal))
	if again.Resolved != "existing" || again.Scenario.ID != created.Scenario.ID {
		t.Errorf("second create: %+v", again)
	}
	found := decodeData[scenarioSearch](t, callTool(t, ts, http.StatusOK, "frt_find_scenarios", map[string]any{"query": "store locator"}))
	if len(found.Scenarios) == 0 || found.Scenarios[0].ID != created.Scenario.ID {
		t.Errorf("find: %+v", found)
	}
	plan := decodeData[trackingPlan](t, callTool(t, ts, http.StatusOK, "tracking_get_plan", map[string]any{"scenarioId": created.Scenario.ID}))
	if len(plan.Events) == 0 {
		t.Error("a created scenario has no tracking plan")
	}
	homepage := decodeData[scenarioCreation](t, callTool(t, ts, http.StatusOK, "create_frt_scenario",
		map[string]any{"goal": "Scroll the homepage to the footer", "confirm": true}))
	if homepage.Scenario.StartPath != "/" {
		t.Errorf("a homepage goal implies /: %+v", homepage)
	}
	tracking := callTool(t, ts, http.StatusUnprocessableEntity, "create_frt_scenario", map[string]any{"goal": "Verify the tracking payload", "confirm": true})
	if tracking.ErrorCode() != "pipeline_blocked" {
		t.Errorf("goal with only a tracking clause: %s", tracking.ErrorCode())
	}
}

// TestConcurrentUse runs every kind of state change at once; run with -race.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{JobStep: time.Millisecond})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			invoke(t, ts, KeyAdmin, "approve_vrt_results", map[string]any{"runId": "run_big", "scenarioLabel": fmt.Sprintf("Cart %d", i+1), "confirm": true})
			invoke(t, ts, KeyAdmin, "get_run_failures", map[string]any{"runId": "run_big"})
			invoke(t, ts, KeyAdmin, "get_diff_stats", map[string]any{"runId": "run_big", "scenarioLabel": "Homepage 1", "viewport": "mobile"})
			invoke(t, ts, KeyAdmin, "create_frt_scenario", map[string]any{"goal": "Open the gift card page /gift-cards", "confirm": true})
			invoke(t, ts, KeyAdmin, "run_tracking", map[string]any{})
			invoke(t, ts, KeyAdmin, "get_job_status", map[string]any{"jobId": "job_000001"})
		})
	}
	wg.Wait()
	found := decodeData[scenarioSearch](t, callTool(t, ts, http.StatusOK, "frt_find_scenarios", map[string]any{"query": "gift"}))
	if len(found.Scenarios) != 1 {
		t.Errorf("the same goal sent 8 times at once made %d scenarios", len(found.Scenarios))
	}
	data := decodeData[runFailures](t, callTool(t, ts, http.StatusOK, "get_run_failures", map[string]any{"runId": "run_big"}))
	if data.Failed != 350-8*3 {
		t.Errorf("run_big has %d failures after approving 8 scenarios on 3 viewports", data.Failed)
	}
}

func BenchmarkRun100k(b *testing.B) {
	ts := testkit.Serve(b, New(Options{Rate: -1}).Handler())
	body := []byte(`{"tool":"get_run_failures","args":{"runId":"run_100k"}}`)
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/mcp/v1/invoke", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+KeyAdmin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := bytes.NewBuffer(nil).ReadFrom(resp.Body)
		resp.Body.Close()
		b.SetBytes(n)
	}
}
