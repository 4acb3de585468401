package sandbox

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/internal/testkit"
)

// ciPost posts body to the CI endpoint of tool with key.
func ciPost(t *testing.T, ts *httptest.Server, key, tool, body string) answer {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, ts.URL+"/api/ci/"+tool, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
	}
	return do(t, r)
}

// ciAnswer is get_run_status' answer, every field the contract names.
type ciAnswer struct {
	RunID    string
	Status   string
	Progress *struct{ Current, Total int }
	Failed   *int
	Total    *int
	URL      string
}

func decodeCI(t *testing.T, a answer) ciAnswer {
	t.Helper()
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "application/json" {
		t.Fatalf("HTTP %d %s: %s", a.status, a.header.Get("Content-Type"), a.body)
	}
	var v ciAnswer
	if err := json.Unmarshal(a.body, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// followRun polls get_run_status until the run has a verdict, checking
// every answer's shape on the way, and returns the last answer.
func followRun(t *testing.T, ts *httptest.Server, runID string) ciAnswer {
	t.Helper()
	lastCurrent := 0
	for deadline := time.Now().Add(testkit.Patience); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		st := decodeCI(t, ciPost(t, ts, KeyAdmin, "get_run_status", `{"runId":"`+runID+`"}`))
		if st.RunID != runID || st.Progress == nil || st.Failed == nil || st.Total == nil || st.URL == "" {
			t.Fatalf("get_run_status misses contract fields: %+v", st)
		}
		if st.Progress.Total != *st.Total || st.Progress.Current < lastCurrent {
			t.Fatalf("progress went from %d to %+v", lastCurrent, *st.Progress)
		}
		lastCurrent = st.Progress.Current
		if st.Status != "queued" && st.Status != "running" {
			return st
		}
	}
	t.Fatalf("%s has no verdict after %s", runID, testkit.Patience)
	return ciAnswer{}
}

// TestCIRunVerdicts starts a run per branch, follows it to its verdict and
// asks get_run_failures about it on the invoke endpoint.
func TestCIRunVerdicts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tool, body string
		verdict    string
		failed     int
		failures   []string
	}{
		{"run_vrt", `{"branch":"main"}`, "passed", 0, nil},
		{"run_perf", `{}`, "passed", 0, nil},
		{"run_vrt", `{"branch":"feature/new-header","commit":"abc123"}`, "failed", 3, []string{"Homepage/desktop", "Homepage/mobile", "Product page/desktop"}},
		{"run_vrt", `{"branch":"broken"}`, "error", 0, nil},
		{"run_perf", `{"branch":"cancelled"}`, "cancelled", 0, nil},
	} {
		t.Run(tc.tool+" "+tc.body, func(t *testing.T) {
			ts := testServer(t, Options{JobStep: 10 * time.Millisecond})
			started := ciPost(t, ts, KeyAdmin, tc.tool, tc.body)
			if got := compactJSON(t, started.body); got != `{"runId":"run_ci_0001","status":"queued","url":"`+ts.URL+`/sandbox/runs/run_ci_0001"}` {
				t.Fatalf("start answer: %s", got)
			}
			final := followRun(t, ts, "run_ci_0001")
			if final.Status != tc.verdict || *final.Failed != tc.failed {
				t.Fatalf("final %+v; want verdict %s with %d failed", final, tc.verdict, tc.failed)
			}
			var failures struct {
				OK   bool
				Data struct {
					Failed, Total int
					Failures      []check
				}
			}
			if err := json.Unmarshal(invoke(t, ts, KeyAdmin, "get_run_failures", map[string]any{"runId": "run_ci_0001"}).body, &failures); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range failures.Data.Failures {
				got = append(got, c.ScenarioLabel+"/"+c.Viewport)
			}
			if !failures.OK || failures.Data.Failed != tc.failed || failures.Data.Total != *final.Total || strings.Join(got, ",") != strings.Join(tc.failures, ",") {
				t.Errorf("get_run_failures: %+v", failures)
			}
		})
	}
}

func TestCIErrors(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{})
	getReq, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/ci/run_vrt", nil)
	getReq.Header.Set("Authorization", "Bearer "+KeyAdmin)
	for _, tc := range []struct {
		name   string
		answer answer
		status int
		code   string
	}{
		{"missing key", ciPost(t, ts, "", "run_vrt", `{}`), http.StatusUnauthorized, "unauthorized"},
		{"unknown key", ciPost(t, ts, "nope", "get_run_status", `{}`), http.StatusUnauthorized, "unauthorized"},
		{"unknown tool", ciPost(t, ts, KeyAdmin, "run_everything", `{}`), http.StatusNotFound, "not_found"},
		{"GET", do(t, getReq), http.StatusMethodNotAllowed, "validation_error"},
		{"body not an object", ciPost(t, ts, KeyAdmin, "run_vrt", `["main"]`), http.StatusBadRequest, "validation_error"},
		{"two bodies", ciPost(t, ts, KeyAdmin, "run_vrt", `{} {}`), http.StatusBadRequest, "validation_error"},
		{"branch not a string", ciPost(t, ts, KeyAdmin, "run_vrt", `{"branch":5}`), http.StatusBadRequest, "validation_error"},
		{"no runId", ciPost(t, ts, KeyAdmin, "get_run_status", `{}`), http.StatusBadRequest, "validation_error"},
		{"unknown run", ciPost(t, ts, KeyAdmin, "get_run_status", `{"runId":"run_abc"}`), http.StatusBadRequest, "validation_error"},
	} {
		var body struct {
			Error struct{ Code, Message string }
		}
		err := json.Unmarshal(tc.answer.body, &body)
		if tc.answer.status != tc.status || err != nil || body.Error.Code != tc.code || body.Error.Message == "" {
			t.Errorf("%s: HTTP %d %s; want %d with error.code %s", tc.name, tc.answer.status, tc.answer.body, tc.status, tc.code)
		}
	}
}

func TestCIRateLimit(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{Rate: 0.001, Burst: 1})
	ciPost(t, ts, KeyAdmin, "run_vrt", `{}`)
	a := ciPost(t, ts, KeyAdmin, "run_vrt", `{}`)
	var body struct {
		Error struct {
			Code         string
			RetryAfterMs int64
		}
	}
	if err := json.Unmarshal(a.body, &body); err != nil || a.status != http.StatusTooManyRequests ||
		body.Error.Code != "rate_limit" || body.Error.RetryAfterMs <= 0 || a.header.Get("Retry-After") == "" {
		t.Errorf("HTTP %d %v %s", a.status, a.header, a.body)
	}
}

// TestCIRunsWhileServing starts runs while other clients read the run
// store; run with -race it proves the store is guarded.
func TestCIRunsWhileServing(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{})
	started := make(chan error, 1)
	go func() {
		// No t.Fatal off the test goroutine: the first error is reported.
		var err error
		for range 20 {
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/ci/run_vrt", strings.NewReader(`{"branch":"feature/new-header"}`))
			req.Header.Set("Authorization", "Bearer "+KeyAdmin)
			resp, postErr := http.DefaultClient.Do(req)
			if postErr != nil {
				err = cmp.Or(err, postErr)
				continue
			}
			resp.Body.Close()
		}
		started <- err
	}()
	for range 20 {
		a := invoke(t, ts, KeyAdmin, "get_run_failures", map[string]any{"runId": "run_abc"})
		if a.status != http.StatusOK {
			t.Fatalf("HTTP %d %s", a.status, a.body)
		}
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	a := invoke(t, ts, KeyAdmin, "get_run_failures", map[string]any{"runId": "run_ci_0020"})
	if a.status != http.StatusOK || !bytes.Contains(a.body, []byte(`"failed":3`)) {
		t.Errorf("the 20th CI run: HTTP %d %s", a.status, a.body)
	}
}
