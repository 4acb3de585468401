package cmd

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/visualq/vq/api"
)

// step is one scripted answer of jobServer.
type step struct {
	status int
	body   string
}

// jobServer is an invoke endpoint with scripted jobs: get_job_status {jobId}
// answers that job's steps in order (the last one repeats); any other tool
// answers start. It records the tools called and the polls of each job.
type jobServer struct {
	*httptest.Server
	mu     sync.Mutex
	start  step
	jobs   map[string][]step
	polls  map[string]int
	tools  []string
	onPoll func(jobID string, n int) // called before a poll is answered
}

func newJobServer(t *testing.T, start step, jobs map[string][]step) *jobServer {
	t.Helper()
	s := &jobServer{start: start, jobs: jobs, polls: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var call struct {
			Tool string `json:"tool"`
			Args struct {
				JobID string `json:"jobId"`
			} `json:"args"`
		}
		json.NewDecoder(r.Body).Decode(&call)
		s.mu.Lock()
		s.tools = append(s.tools, call.Tool)
		answer := s.start
		var n int
		if call.Tool == api.ToolJobStatus {
			s.polls[call.Args.JobID]++
			n = s.polls[call.Args.JobID]
			steps, ok := s.jobs[call.Args.JobID]
			answer = step{404, jobFailure(api.CodeNotFound, false, "no job "+call.Args.JobID)}
			if ok {
				answer = steps[min(n, len(steps))-1]
			}
		}
		hook := s.onPoll
		s.mu.Unlock()
		if hook != nil && call.Tool == api.ToolJobStatus {
			hook(call.Args.JobID, n)
		}
		w.WriteHeader(answer.status)
		io.WriteString(w, answer.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jobServer) env() map[string]string {
	return map[string]string{"VQ_BASE_URL": s.URL, "VQ_API_KEY": "vqs_test"}
}

func (s *jobServer) pollCount(jobID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.polls[jobID]
}

// jobStep is a get_job_status answer; total 0 means no progress reported.
func jobStep(id, status string, current, total int, message string) step {
	data := map[string]any{"jobId": id, "status": status}
	if total > 0 {
		data["progress"] = map[string]any{"current": current, "total": total, "message": message}
	}
	if status == api.JobCompleted {
		data["result"] = map[string]any{"checked": total}
	}
	return step{200, toolJSON(map[string]any{"ok": true, "tool": api.ToolJobStatus, "summary": "Job " + id + " " + status + ".", "data": data})}
}

func jobFailure(code string, recoverable bool, message string) string {
	return toolJSON(map[string]any{"ok": false, "tool": api.ToolJobStatus, "summary": message, "data": nil,
		"error": map[string]string{"code": code, "message": message}, "recoverable": recoverable})
}

// toolJSON completes a ToolResponse with empty warnings and nextActions.
func toolJSON(fields map[string]any) string {
	r := map[string]any{"warnings": []string{}, "nextActions": []any{}}
	for k, v := range fields {
		r[k] = v
	}
	b, _ := json.Marshal(r)
	return string(b)
}

func queued(tool, id string) step {
	return step{200, toolJSON(map[string]any{"ok": true, "tool": tool, "summary": "Job " + id + " queued.", "data": map[string]any{"jobId": id, "status": "queued"}})}
}

var gateway502 = step{502, "<html><body>Bad Gateway</body></html>"}

func TestWatchQueuedToCompleted(t *testing.T) {
	s := newJobServer(t, step{}, map[string][]step{"job_1": {
		jobStep("job_1", "queued", 0, 0, ""),
		jobStep("job_1", "queued", 0, 0, ""),
		jobStep("job_1", "running", 1, 3, "Loading page"),
		jobStep("job_1", "running", 1, 3, "Loading page"),
		jobStep("job_1", "running", 2, 3, "Comparing \x1b[31mscreenshots"),
		jobStep("job_1", "completed", 3, 3, "Done"),
	}})
	stdout, stderr, exit := runVQ(t, s.env(), "watch", "job_1", "--interval", "1ms")
	if exit != 0 {
		t.Fatalf("exit %d\nstderr: %s", exit, stderr)
	}
	// One line per change, none per poll, escape codes from the server gone.
	want := "job_1 queued (0s)\n" +
		"job_1 running 1/3 Loading page (0s)\n" +
		"job_1 running 2/3 Comparing screenshots (0s)\n" +
		"job_1 completed 3/3 Done (0s)\n"
	if stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
	}
	if !strings.HasPrefix(stdout, "Job job_1 completed.\n") || !strings.Contains(stdout, "result.checked") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if n := s.pollCount("job_1"); n != 6 {
		t.Errorf("%d polls, want 6: one per scripted answer and none after the end", n)
	}
}

func TestWatchGoesOnThrough502s(t *testing.T) {
	s := newJobServer(t, step{}, map[string][]step{"job_1": {
		jobStep("job_1", "running", 1, 2, ""),
		gateway502, gateway502, gateway502, gateway502, // polls skip the client's retry: the watch backs off itself
		jobStep("job_1", "completed", 2, 2, ""),
	}})
	stdout, stderr, exit := runVQ(t, s.env(), "watch", "job_1", "--interval", "1ms")
	if exit != 0 {
		t.Fatalf("exit %d\nstderr: %s", exit, stderr)
	}
	if got := strings.Count(stderr, "job_1 poll failed: http_error: HTTP 502 Bad Gateway: Bad Gateway; retrying in 1ms ("); got != 4 {
		t.Errorf("%d poll-failed lines, want 4 (one per 502):\n%s", got, stderr)
	}
	if !strings.Contains(stderr, "job_1 completed 2/2 (") || !strings.Contains(stdout, "Job job_1 completed.") {
		t.Errorf("stdout %q\nstderr %q", stdout, stderr)
	}
}

func TestWatchFailedJobExitsWithItsCode(t *testing.T) {
	failed := toolJSON(map[string]any{"ok": false, "tool": api.ToolJobStatus, "summary": "Job job_1 failed.",
		"data":  map[string]any{"jobId": "job_1", "status": "failed", "result": map[string]any{"reason": "no event"}},
		"error": map[string]string{"code": "tool_error", "message": "executor crashed"}, "recoverable": false})
	s := newJobServer(t, step{}, map[string][]step{"job_1": {jobStep("job_1", "running", 1, 2, ""), {200, failed}}})
	stdout, stderr, exit := runVQ(t, s.env(), "watch", "job_1", "--interval", "1ms")
	if exit != 37 { // tool_error, not recoverable
		t.Errorf("exit %d, want 37", exit)
	}
	if !strings.Contains(stdout, "result.reason  no event") {
		t.Errorf("the failed job's result is not shown:\n%s", stdout)
	}
	if !strings.Contains(stderr, "job_1 failed: tool_error: executor crashed (0s)\n") ||
		!strings.Contains(stderr, "error: tool_error: executor crashed (not recoverable, exit 37)\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

func TestWatchUnknownJobIsARefusal(t *testing.T) {
	s := newJobServer(t, step{}, nil)
	_, stderr, exit := runVQ(t, s.env(), "watch", "job_nope", "--interval", "1ms")
	if exit != 41 { // not_found, not recoverable
		t.Errorf("exit %d, want 41\n%s", exit, stderr)
	}
	if !strings.Contains(stderr, "error: not_found: no job job_nope") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if n := s.pollCount("job_nope"); n != 1 {
		t.Errorf("%d polls, want 1: a refusal is not polled again", n)
	}
}

func TestWatchTimeoutExitsWithTheTimeoutCodeAndHowToResume(t *testing.T) {
	s := newJobServer(t, step{}, map[string][]step{"job 1": {jobStep("job 1", "running", 1, 9, "slow")}})
	stdout, stderr, exit := runVQ(t, s.env(), "watch", "job 1", "--interval", "2ms", "--wait-timeout", "80ms")
	if exit != 5 {
		t.Errorf("exit %d, want 5 (timeout)", exit)
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing: the job has no final answer", stdout)
	}
	for _, want := range []string{
		"job 1 running 1/9 slow (0s)\n",
		"error: timeout: job job 1 still running after 80ms; it may still finish (recoverable, exit 5)\n",
		"vq: to resume: vq watch 'job 1'\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestWatchInterruptedExits130WithHowToResume(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := newJobServer(t, step{}, map[string][]step{"job_1": {jobStep("job_1", "running", 1, 9, "")}})
	s.onPoll = func(_ string, n int) {
		if n == 3 {
			cancel() // Ctrl-C while the third poll is in flight
		}
	}
	stdout, stderr, exit := vqRun{Env: s.env(), Ctx: ctx}.run(t, "watch", "job_1", "--interval", "1ms")
	if exit != 130 {
		t.Errorf("exit %d, want 130", exit)
	}
	if stdout != "" || !strings.Contains(stderr, "vq: to resume: vq watch job_1\n") || !strings.HasSuffix(stderr, "vq: interrupted\n") {
		t.Errorf("stdout %q\nstderr %q", stdout, stderr)
	}
	if n := s.pollCount("job_1"); n != 3 {
		t.Errorf("%d polls, want none after the interrupt", n)
	}
}

func TestWatchSeveralJobsExitsWithTheWorst(t *testing.T) {
	proofFailed := toolJSON(map[string]any{"ok": false, "tool": api.ToolJobStatus, "summary": "Job job_b failed.",
		"data":  map[string]any{"jobId": "job_b", "status": "failed"},
		"error": map[string]string{"code": "proof_failed", "message": "not proven"}, "recoverable": true})
	s := newJobServer(t, step{}, map[string][]step{
		"job_a": {jobStep("job_a", "running", 1, 2, ""), jobStep("job_a", "completed", 2, 2, "")},
		"job_b": {jobStep("job_b", "running", 1, 2, ""), {200, proofFailed}},
	})
	stdout, stderr, exit := runVQ(t, s.env(), "watch", "job_a", "job_b", "--interval", "1ms")
	if exit != 22 { // proof_failed, recoverable: larger than job_a's 0
		t.Errorf("exit %d, want 22\n%s", exit, stderr)
	}
	if !strings.HasPrefix(stdout, "== job job_a ==\nJob job_a completed.\n") || !strings.Contains(stdout, "== job job_b ==\nJob job_b failed.\n") {
		t.Errorf("stdout:\n%s", stdout)
	}

	// Headers are for a person: output for a program has none.
	for _, asked := range [][]string{{"--json"}, {"--jq", ".tool"}, {"--format", "junit"}, {"--format", "github"}} {
		stdout, _, _ = runVQ(t, s.env(), append([]string{"watch", "job_a", "job_b", "--interval", "1ms"}, asked...)...)
		if strings.Contains(stdout, "== job") {
			t.Errorf("%v: a header in output for a program:\n%s", asked, stdout)
		}
	}

	// An unknown job (not_found, 41) is worse still; --json prints one
	// document per job, in the order given, one per line.
	stdout, _, exit = runVQ(t, s.env(), "watch", "job_a", "job_x", "job_b", "--interval", "1ms", "--json")
	if exit != 41 {
		t.Errorf("exit %d, want 41", exit)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines of JSON, want 3:\n%s", len(lines), stdout)
	}
	for i, want := range []string{`"jobId":"job_a"`, `"code":"not_found"`, `"jobId":"job_b"`} {
		if !json.Valid([]byte(lines[i])) || !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %s, want a document with %s", i, lines[i], want)
		}
	}
}

func TestWaitWatchesTheJobAnAsyncToolReturns(t *testing.T) {
	jobs := map[string][]step{"job_7": {jobStep("job_7", "running", 1, 2, "Replaying"), jobStep("job_7", "completed", 2, 2, "")}}
	for _, args := range [][]string{
		{"invoke", "run_tracking", "scenarioId=scn_1", "--wait"},
		{"tracking", "run", "--scenario", "scn_1", "--wait"},
	} {
		s := newJobServer(t, queued("run_tracking", "job_7"), jobs)
		stdout, stderr, exit := runVQ(t, s.env(), append(args, "--interval", "1ms")...)
		if exit != 0 || !strings.HasPrefix(stdout, "Job job_7 completed.\n") || !strings.Contains(stderr, "job_7 running 1/2 Replaying (0s)\n") {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q", args, exit, stdout, stderr)
		}
		if got := strings.Join(s.tools, " "); got != "run_tracking get_job_status get_job_status" {
			t.Errorf("%v: calls %s", args, got)
		}
	}

	// Without --wait the queued job is the answer.
	s := newJobServer(t, queued("run_tracking", "job_7"), jobs)
	stdout, _, exit := runVQ(t, s.env(), "tracking", "run", "--scenario", "scn_1")
	if exit != 0 || !strings.HasPrefix(stdout, "Job job_7 queued.\n") || len(s.tools) != 1 {
		t.Errorf("exit %d, calls %v, stdout %q", exit, s.tools, stdout)
	}
}

func TestWatchNeedsAJobID(t *testing.T) {
	_, stderr, exit := runVQ(t, nil, "watch")
	if exit != 2 || !strings.Contains(stderr, "vq watch needs at least one JOB_ID") {
		t.Errorf("exit %d, stderr %q", exit, stderr)
	}
}

func TestWatchTimeoutPrintsOneJSONDocument(t *testing.T) {
	s := newJobServer(t, step{}, map[string][]step{"job_1": {jobStep("job_1", "running", 1, 9, "slow")}})
	stdout, _, exit := runVQ(t, s.env(), "watch", "job_1", "--interval", "2ms", "--wait-timeout", "50ms", "--json")
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || exit != 5 {
		t.Fatalf("exit %d, stdout %q is not one JSON document", exit, stdout)
	}
	if e, _ := doc["error"].(map[string]any); doc["ok"] != false || e["code"] != "timeout" {
		t.Errorf("document %v", doc)
	}
}
