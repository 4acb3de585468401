package api

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/visualq/vq/internal/testkit"
)

// jobBody is job_1's get_job_status answer; a job that finished has the
// result {"answer": 42}, and a failed one is a recoverable proof_failed.
func jobBody(status string, current, total int, message string) string {
	opts := []testkit.Option{testkit.Summary("job " + status)}
	if status == JobCompleted || status == JobFailed {
		opts = append(opts, testkit.Result(map[string]any{"answer": 42}))
	}
	if status == JobFailed {
		opts = append(opts, testkit.Failed(CodeProofFailed, "the proof failed", true))
	}
	return testkit.JobStatus("job_1", status, current, total, message, opts...)
}

// fast is a policy small enough for tests: the schedule is checked on its
// own in TestPolicySchedule.
var fast = WatchOptions{MinInterval: time.Millisecond, MaxInterval: 4 * time.Millisecond}

func watchOnce(t *testing.T, s *testkit.Server, o WatchOptions) (*ToolResponse, []JobUpdate, error) {
	t.Helper()
	var mu sync.Mutex
	var updates []JobUpdate
	o.OnUpdate = func(u JobUpdate) {
		mu.Lock()
		updates = append(updates, u)
		mu.Unlock()
	}
	c := newClient(s, Options{NoRetry: true})
	resp, err := Watch(testkit.Bound(t), "job_1", c.JobStatusPoll("job_1"), o)
	return resp, updates, err
}

func TestPolicySchedule(t *testing.T) {
	t.Parallel()
	p := NewPolicy(WatchOptions{})
	var got []time.Duration
	for range 8 {
		got = append(got, p.Next(false))
	}
	want := []float64{1000, 1500, 2250, 3375, 5062.5, 7593.75, 10000, 10000} // ms
	for i := range want {
		if w := time.Duration(want[i] * float64(time.Millisecond)); got[i] != w {
			t.Fatalf("wait %d = %s, want %s (all: %v)", i, got[i], w, got)
		}
	}
	if w := p.Next(true); w != time.Second {
		t.Errorf("after a change the wait is %s, want back to 1s", w)
	}
	if w := p.Next(false); w != time.Second {
		t.Errorf("first quiet poll after a change waits %s, want 1s", w)
	}
	// Once the job has shown its pace, a change waits most of a step.
	clock := time.Unix(0, 0)
	p = NewPolicy(WatchOptions{})
	p.now = func() time.Time { return clock }
	for _, tc := range []struct {
		sinceLast time.Duration
		want      time.Duration
	}{
		{0, time.Second}, // the first change: no pace yet
		{4 * time.Second, 3400 * time.Millisecond}, // 0.85 of a 4s step
		{20 * time.Second, 10 * time.Second},       // never past the maximum
		{500 * time.Millisecond, time.Second},      // never below the minimum
	} {
		clock = clock.Add(tc.sinceLast)
		if w := p.Next(true); w != tc.want {
			t.Errorf("a change %s after the last: wait %s, want %s", tc.sinceLast, w, tc.want)
		}
	}
	if w := p.Next(false); w != time.Second {
		t.Errorf("a quiet poll after a paced wait waits %s, want the short 1s", w)
	}
	fixed := NewPolicy(WatchOptions{Interval: 3 * time.Second})
	for _, changed := range []bool{false, false, true, false} {
		if w := fixed.Next(changed); w != 3*time.Second {
			t.Fatalf("--interval 3s waited %s", w)
		}
	}
}

func TestWatchQueuedToCompletedReportsOnlyChanges(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Script(testkit.Answer(200, jobBody(JobQueued, 0, 0, "")),
		testkit.Answer(200, jobBody(JobQueued, 0, 0, "")),
		testkit.Answer(200, jobBody(JobRunning, 1, 3, "Loading page")),
		testkit.Answer(200, jobBody(JobRunning, 1, 3, "Loading page")),
		testkit.Answer(200, jobBody(JobRunning, 2, 3, "Comparing screenshots")),
		testkit.Answer(200, jobBody(JobCompleted, 3, 3, "Done")),
	))
	resp, updates, err := watchOnce(t, s, fast)
	if err != nil || !resp.OK || !strings.Contains(string(resp.Data), `"answer":42`) {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	if n := s.Count(); n != 6 {
		t.Errorf("polled %d times, want 6 (one per scripted answer, none after the end)", n)
	}
	var lines []string
	for _, u := range updates {
		lines = append(lines, u.Status+" "+u.Message)
	}
	want := "queued |running Loading page|running Comparing screenshots|completed Done"
	if got := strings.Join(lines, "|"); got != want {
		t.Errorf("updates %q, want %q", got, want)
	}
	if last := updates[len(updates)-1]; last.Final != resp || last.Current != 3 || last.Total != 3 {
		t.Errorf("last update %+v", last)
	}
	var body map[string]any
	json.Unmarshal(s.Last().Raw, &body)
	if body["tool"] != ToolJobStatus || body["args"].(map[string]any)["jobId"] != "job_1" {
		t.Errorf("poll request %v", body)
	}
}

func TestWatchGoesOnThroughTransientFailures(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Script(testkit.Answer(200, jobBody(JobRunning, 1, 2, "")),
		testkit.Answer(502, "<html>Bad Gateway</html>"),
		testkit.Answer(503, ""),
		testkit.Answer(200, testkit.Failure("t", CodeToolError, "msg "+CodeToolError, true, testkit.Summary(CodeToolError))),
		testkit.Answer(200, jobBody(JobCompleted, 2, 2, "")),
	))
	resp, updates, err := watchOnce(t, s, fast)
	if err != nil || !resp.OK {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	failures := 0
	for _, u := range updates {
		if u.Failure != nil {
			failures++
			if u.RetryIn <= 0 {
				t.Errorf("failure update without a retry delay: %+v", u)
			}
		}
	}
	if failures != 3 {
		t.Errorf("%d failure updates, want 3", failures)
	}
}

func TestWatchGivesUpAfterTheFailureBudget(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(502, "bad gateway"))
	o := fast
	o.MaxFailures = 4
	resp, _, err := watchOnce(t, s, o)
	if err != nil || resp.ErrorCode() != CodeHTTPError || !strings.Contains(resp.ErrorMessage(), "502") {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	if n := s.Count(); n != 4 {
		t.Errorf("polled %d times, want 4", n)
	}
}

func TestWatchWaitsOutARateLimitThatGotThrough(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Script(testkit.Answer(429, testkit.RateLimit("t", "msg rate_limit", 20, testkit.Summary("rate_limit"))),
		testkit.Answer(200, jobBody(JobCompleted, 1, 1, "")),
	))
	resp, updates, err := watchOnce(t, s, fast)
	if err != nil || !resp.OK {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	if len(updates) != 1 || updates[0].Failure != nil {
		t.Errorf("a rate limit is not a failure to report: %+v", updates)
	}
}

func TestWatchEndsOnARefusalAndOnAFailedJob(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"unknown job": testkit.Failure("t", CodeNotFound, "msg "+CodeNotFound, false, testkit.Summary(CodeNotFound)),
		"failed job":  jobBody(JobFailed, 2, 3, "no event"),
	} {
		t.Run(name, func(t *testing.T) {
			s := testkit.NewServer(t, testkit.Always(200, body))
			resp, updates, err := watchOnce(t, s, fast)
			if err != nil || resp == nil || string(resp.Raw) != body {
				t.Fatalf("resp %+v err %v", resp, err)
			}
			if n := s.Count(); n != 1 {
				t.Errorf("polled %d times, want 1", n)
			}
			if len(updates) != 1 || updates[0].Final != resp {
				t.Errorf("updates %+v", updates)
			}
		})
	}
}

func TestWatchTimeoutReportsTheLastStatus(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(200, jobBody(JobRunning, 1, 5, "slow")))
	o := fast
	o.Timeout = 30 * time.Millisecond
	resp, _, err := watchOnce(t, s, o)
	var timeout *WatchTimeoutError
	if !errors.As(err, &timeout) || resp != nil {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	if timeout.JobID != "job_1" || timeout.Last.Status != JobRunning || timeout.Last.Current != 1 {
		t.Errorf("timeout %+v", timeout)
	}
	if !strings.Contains(err.Error(), "job job_1 still running after 30ms") {
		t.Errorf("message %q", err)
	}
}

func TestWatchStopsWhenTheContextIsCancelled(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	ctx, cancel := context.WithCancel(ctx)
	polls := 0
	s := testkit.NewServer(t, func(testkit.Call) testkit.Reply {
		if polls++; polls == 3 {
			cancel()
		}
		return testkit.Answer(200, jobBody(JobRunning, polls, 10, ""))
	})
	c := newClient(s, Options{})
	resp, err := Watch(ctx, "job_1", c.JobStatusPoll("job_1"), fast)
	if !errors.Is(err, context.Canceled) || resp != nil {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	if polls != 3 {
		t.Errorf("polled %d times after the cancel, want 3 in all", polls)
	}
}

func TestAcceptedJob(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"ok":true,"data":{"jobId":"job_9","status":"queued"}}`:    "job_9",
		`{"ok":true,"data":{"jobId":"job_9","status":"running"}}`:   "job_9",
		`{"ok":true,"data":{"jobId":"job_9","status":"completed"}}`: "",
		`{"ok":false,"data":{"jobId":"job_9","status":"queued"}}`:   "",
		`{"ok":true,"data":{"status":"queued"}}`:                    "",
		`{"ok":true,"data":[1,2]}`:                                  "",
		`{"ok":true,"data":null}`:                                   "",
	} {
		r, err := DecodeToolResponse([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := AcceptedJob(r); got != want {
			t.Errorf("AcceptedJob(%s) = %q, want %q", body, got, want)
		}
	}
}

// Malformed progress is not completion, and an ok answer without a status
// is no outcome: the watch polls on (progress it cannot read is left out)
// and never ends ok on a job that is still running.
func TestMalformedJobStatusesNeverEndAWatchOK(t *testing.T) {
	t.Parallel()
	running := func(progress string) string {
		return `{"ok":true,"tool":"get_job_status","summary":"s","data":{"jobId":"j","status":"running","progress":` + progress + `},"warnings":[],"nextActions":[]}`
	}
	for name, body := range map[string]string{
		"progress out of range":  running(`{"current":1e400,"total":3}`),
		"progress as text":       running(`{"current":"50%","total":"100%"}`),
		"progress not an object": running(`"half"`),
		"no status":              testkit.OK("get_job_status", "done", map[string]any{"n": 1}),
	} {
		t.Run(name, func(t *testing.T) {
			s := testkit.NewServer(t, testkit.Always(200, body))
			resp, updates, err := watchOnce(t, s, WatchOptions{Interval: time.Millisecond, Timeout: 200 * time.Millisecond, MaxFailures: 3})
			var timeout *WatchTimeoutError
			switch {
			case errors.As(err, &timeout):
				// Still running at the deadline: the timeout, not an ok end.
			case err != nil:
				t.Fatalf("err %v", err)
			case resp.OK:
				t.Fatalf("the watch ended ok on %s", body)
			}
			if n := s.Count(); n < 2 {
				t.Errorf("polled %d times: a malformed answer ended the watch at once", n)
			}
			// An answer without a status is a failed poll, told as one.
			if name == "no status" && !slices.ContainsFunc(updates, func(u JobUpdate) bool { return u.Failure != nil && u.RetryIn > 0 }) {
				t.Errorf("no failed poll was told: %+v", updates)
			}
		})
	}
}

// The fakes of every package's tests speak the contract by the names api
// gives it.
func TestTestkitNamesAreTheContracts(t *testing.T) {
	t.Parallel()
	for got, want := range map[string]string{
		testkit.ToolJobStatus: ToolJobStatus, testkit.CodeNotFound: CodeNotFound,
		testkit.CodeRateLimit: CodeRateLimit, testkit.JobCompleted: JobCompleted,
	} {
		if got != want {
			t.Errorf("testkit says %q where api says %q", got, want)
		}
	}
}
