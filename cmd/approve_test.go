package cmd

import (
	"encoding/json"
	"github.com/visualq/vq/cmd/cmdtest"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/fixture"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

func sandboxEnv(t *testing.T) map[string]string {
	return cmdtest.NewSandbox(t, sandbox.Options{Rate: -1}).Env()
}

// failing is how many checks of the run still fail.
func failing(t *testing.T, env map[string]string, run string) int {
	t.Helper()
	out, stderr, exit := runVQ(t, env, "failures", run, "--json", "--jq", ".data.failed")
	if exit != 0 {
		t.Fatalf("vq failures: exit %d: %s", exit, stderr)
	}
	var n int
	if err := json.Unmarshal([]byte(out), &n); err != nil {
		t.Fatalf("failed count %q: %v", out, err)
	}
	return n
}

func TestApprovePromptSaysHowManyChecks(t *testing.T) {
	t.Parallel()
	env := sandboxEnv(t)
	env["VQ_NO_TUI"] = "1"
	_, stderr, exit := vqRun{Env: env, TTY: true, Stdin: "y\n"}.run(t, "approve", "run_big", "--viewport", "desktop")
	if exit != 0 || !strings.Contains(stderr, "Approve 117 failing checks (viewport desktop) in run_big? [y/N]") {
		t.Fatalf("exit %d, stderr %s", exit, stderr)
	}
	if n := failing(t, env, "run_big"); n != 350-117 {
		t.Errorf("%d checks still fail, want %d", n, 350-117)
	}
	_, stderr, exit = vqRun{Env: env, TTY: true, Stdin: "n\n"}.run(t, "approve", "run_big", "--scenario", "Cart 1", "--viewport", "tablet")
	if exit != exitcode.ForCode("confirm_required", true) || stderr != "Approve 1 check (Cart 1, tablet) in run_big? [y/N] Not approved: nothing was sent.\n" {
		t.Errorf("declined: exit %d, stderr %s", exit, stderr)
	}
	// A run's web URL asks about the run it names.
	_, stderr, _ = vqRun{Env: env, TTY: true, Stdin: "n\n"}.run(t, "approve", env["VQ_BASE_URL"]+"/sandbox/runs/run_big", "--scenario", "Cart 1", "--viewport", "tablet")
	if stderr != "Approve 1 check (Cart 1, tablet) in run_big? [y/N] Not approved: nothing was sent.\n" {
		t.Errorf("declined, by URL: stderr %s", stderr)
	}
	if n := failing(t, env, "run_big"); n != 350-117 {
		t.Errorf("a declined approval was sent: %d still fail", n)
	}
}

// A batch keeps the single call's budget: against a server that only says
// "slow down", each check goes at most 1 + 10 times, once with --no-retry,
// and a day-long retryAfterMs ends the batch at once.
func TestABatchKeepsTheSingleCallsBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		wait       int
		flags      []string
		maxPerCall int
	}{
		{"retries", 5, nil, 11},
		{"--no-retry", 5, []string{"--no-retry"}, 1},
		{"day-long wait", 86_400_000, []string{"--timeout", "2s", "--wait-timeout", "3s"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := testkit.NewServer(t, testkit.Always(429, testkit.RateLimit("approve_vrt_results", "slow down", tc.wait)))
			start := time.Now()
			args := append([]string{"approve", "run_1", "--scenario", "A", "--scenario", "B", "--viewport", "d", "--yes"}, tc.flags...)
			_, stderr, exit := runVQ(t, s.Env(), args...)
			if exit != exitcode.ForCode("rate_limit", true) {
				t.Errorf("exit %d, stderr %s", exit, stderr)
			}
			for _, check := range []string{"A", "B"} {
				n := 0
				for _, c := range s.CallsOf("approve_vrt_results") {
					if c.Args["scenarioLabel"] == check {
						n++
					}
				}
				if n == 0 || n > tc.maxPerCall {
					t.Errorf("check %s sent %d times, want 1 to %d", check, n, tc.maxPerCall)
				}
			}
			if elapsed := time.Since(start); elapsed > 3*time.Second {
				t.Errorf("the batch took %s, past its --wait-timeout", elapsed)
			}
		})
	}
}

// TestABatchAtTheServersRateLimitApprovesEveryCheck: four calls at a time
// against a server with no burst to spare take turns at its rate limit,
// so none of them loses its retries to the others (before the gate, about
// one in twenty ran out of them and the batch exited rate_limit).
func TestABatchAtTheServersRateLimitApprovesEveryCheck(t *testing.T) {
	t.Parallel()
	const checks = 60
	env := cmdtest.NewSandbox(t, sandbox.Options{Rate: 400, Burst: 1}).Env()
	args := []string{"approve", "run_big", "--yes"}
	for _, c := range fixture.Checks(checks) {
		args = append(args, "--scenario", c.ScenarioLabel, "--viewport", c.Viewport)
	}
	_, stderr, exit := runVQ(t, env, args...)
	if exit != 0 || strings.Contains(stderr, "refused") {
		t.Fatalf("exit %d:\n%s", exit, stderr)
	}
	if n := failing(t, env, "run_big"); n != 350-checks { // run_big fails 350
		t.Errorf("%d checks still fail, want %d", n, 350-checks)
	}
}
