package cmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
)

var gateway502 = testkit.Answer(502, "<html><body>Bad Gateway</body></html>")

func TestWatchQueuedToCompleted(t *testing.T) {
	t.Parallel()
	s := testkit.NewJobServer(t, testkit.Reply{}, map[string][]testkit.Reply{"job_1": {
		testkit.JobStep("job_1", "queued", 0, 0, ""),
		testkit.JobStep("job_1", "queued", 0, 0, ""),
		testkit.JobStep("job_1", "running", 1, 3, "Loading page"),
		testkit.JobStep("job_1", "running", 1, 3, "Loading page"),
		testkit.JobStep("job_1", "running", 2, 3, "Comparing \x1b[31mscreenshots"),
		testkit.JobStep("job_1", "completed", 3, 3, "Done"),
	}})
	stdout, stderr, exit := runVQ(t, s.Env(), "watch", "job_1", "--interval", "1ms")
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
	if n := s.Polls("job_1"); n != 6 {
		t.Errorf("%d polls, want 6: one per scripted answer and none after the end", n)
	}
}

func TestWatchGoesOnThrough502s(t *testing.T) {
	t.Parallel()
	s := testkit.NewJobServer(t, testkit.Reply{}, map[string][]testkit.Reply{"job_1": {
		testkit.JobStep("job_1", "running", 1, 2, ""),
		gateway502, gateway502, gateway502, gateway502, // polls skip the client's retry: the watch backs off itself
		testkit.JobStep("job_1", "completed", 2, 2, ""),
	}})
	stdout, stderr, exit := runVQ(t, s.Env(), "watch", "job_1", "--interval", "1ms")
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
	t.Parallel()
	failed := testkit.Failure(api.ToolJobStatus, "tool_error", "executor crashed", false, testkit.Summary("Job job_1 failed."),
		testkit.Set("data", map[string]any{"jobId": "job_1", "status": "failed", "result": map[string]any{"reason": "no event"}}))
	s := testkit.NewJobServer(t, testkit.Reply{}, map[string][]testkit.Reply{"job_1": {testkit.JobStep("job_1", "running", 1, 2, ""), testkit.Answer(200, failed)}})
	stdout, stderr, exit := runVQ(t, s.Env(), "watch", "job_1", "--interval", "1ms")
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
	t.Parallel()
	s := testkit.NewJobServer(t, testkit.Reply{}, nil)
	_, stderr, exit := runVQ(t, s.Env(), "watch", "job_nope", "--interval", "1ms")
	if exit != 41 { // not_found, not recoverable
		t.Errorf("exit %d, want 41\n%s", exit, stderr)
	}
	if !strings.Contains(stderr, "error: not_found: no job job_nope") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if n := s.Polls("job_nope"); n != 1 {
		t.Errorf("%d polls, want 1: a refusal is not polled again", n)
	}
}

func TestWatchTimeoutExitsWithTheTimeoutCodeAndHowToResume(t *testing.T) {
	t.Parallel()
	s := testkit.NewJobServer(t, testkit.Reply{}, map[string][]testkit.Reply{"job 1": {testkit.JobStep("job 1", "running", 1, 9, "slow")}})
	stdout, stderr, exit := runVQ(t, s.Env(), "watch", "job 1", "--interval", "2ms", "--wait-timeout", "1s")
	if exit != 5 {
		t.Errorf("exit %d, want 5 (timeout)", exit)
	}
	if stdout != "" {
		t.Errorf("stdout %q, want nothing: the job has no final answer", stdout)
	}
	for _, want := range []string{
		"job 1 running 1/9 slow (0s)\n",
		"error: timeout: job job 1 still running after 1s; it may still finish (recoverable, exit 5)\n",
		"hint: to resume: vq watch 'job 1'\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestWatchInterruptedExits130WithHowToResume(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := testkit.NewJobServer(t, testkit.Reply{}, map[string][]testkit.Reply{"job_1": {testkit.JobStep("job_1", "running", 1, 9, "")}})
	s.OnPoll = func(_ string, n int) {
		if n == 3 {
			cancel() // Ctrl-C while the third poll is in flight
		}
	}
	stdout, stderr, exit := vqRun{Env: s.Env(), Ctx: ctx}.run(t, "watch", "job_1", "--interval", "1ms")
	if exit != 130 {
		t.Errorf("exit %d, want 130", exit)
	}
	if stdout != "" || !strings.Contains(stderr, "hint: to resume: vq watch job_1\n") || !strings.HasSuffix(stderr, "error: interrupted\n") {
		t.Errorf("stdout %q\nstderr %q", stdout, stderr)
	}
	if n := s.Polls("job_1"); n != 3 {
		t.Errorf("%d polls, want none after the interrupt", n)
	}
}

func TestWatchSeveralJobsExitsWithTheWorst(t *testing.T) {
	t.Parallel()
	proofFailed := testkit.Failure(api.ToolJobStatus, "proof_failed", "not proven", true, testkit.Summary("Job job_b failed."),
		testkit.Set("data", map[string]any{"jobId": "job_b", "status": "failed"}))
	s := testkit.NewJobServer(t, testkit.Reply{}, map[string][]testkit.Reply{
		"job_a": {testkit.JobStep("job_a", "running", 1, 2, ""), testkit.JobStep("job_a", "completed", 2, 2, "")},
		"job_b": {testkit.JobStep("job_b", "running", 1, 2, ""), testkit.Answer(200, proofFailed)},
	})
	stdout, stderr, exit := runVQ(t, s.Env(), "watch", "job_a", "job_b", "--interval", "1ms")
	if exit != 22 { // proof_failed, recoverable: larger than job_a's 0
		t.Errorf("exit %d, want 22\n%s", exit, stderr)
	}
	if !strings.HasPrefix(stdout, "== job job_a ==\nJob job_a completed.\n") || !strings.Contains(stdout, "== job job_b ==\nJob job_b failed.\n") {
		t.Errorf("stdout:\n%s", stdout)
	}

	// Headers are for a person: output for a program has none.
	for _, asked := range [][]string{{"--json"}, {"--jq", ".tool"}, {"--format", "junit"}, {"--format", "github"}} {
		stdout, _, _ = runVQ(t, s.Env(), append([]string{"watch", "job_a", "job_b", "--interval", "1ms"}, asked...)...)
		if strings.Contains(stdout, "== job") {
			t.Errorf("%v: a header in output for a program:\n%s", asked, stdout)
		}
	}

	// An unknown job (not_found, 41) is worse still; --json prints one
	// document per job, in the order given, one per line.
	stdout, _, exit = runVQ(t, s.Env(), "watch", "job_a", "job_x", "job_b", "--interval", "1ms", "--json")
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
	t.Parallel()
	jobs := map[string][]testkit.Reply{"job_7": {testkit.JobStep("job_7", "running", 1, 2, "Replaying"), testkit.JobStep("job_7", "completed", 2, 2, "")}}
	for _, args := range [][]string{
		{"invoke", "run_tracking", "scenarioId=scn_1", "--wait"},
		{"tracking", "run", "--scenario", "scn_1", "--wait"},
	} {
		s := testkit.NewJobServer(t, testkit.Answer(200, testkit.Queued("run_tracking", "job_7")), jobs)
		stdout, stderr, exit := runVQ(t, s.Env(), append(args, "--interval", "1ms")...)
		if exit != 0 || !strings.HasPrefix(stdout, "Job job_7 completed.\n") || !strings.Contains(stderr, "job_7 running 1/2 Replaying (0s)\n") {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q", args, exit, stdout, stderr)
		}
		if got := strings.Join(s.Tools(), " "); got != "run_tracking get_job_status get_job_status" {
			t.Errorf("%v: calls %s", args, got)
		}
	}

	// Without --wait the queued job is the answer.
	s := testkit.NewJobServer(t, testkit.Answer(200, testkit.Queued("run_tracking", "job_7")), jobs)
	stdout, _, exit := runVQ(t, s.Env(), "tracking", "run", "--scenario", "scn_1")
	if exit != 0 || !strings.HasPrefix(stdout, "Job job_7 queued.\n") || len(s.Tools()) != 1 {
		t.Errorf("exit %d, calls %v, stdout %q", exit, s.Tools(), stdout)
	}
}
