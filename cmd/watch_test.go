package cmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
)

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
	if !strings.HasPrefix(stdout, "== job job_a ==\n✓ Job job_a completed.\n") || !strings.Contains(stdout, "== job job_b ==\n✗ Job job_b failed.\n") {
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
