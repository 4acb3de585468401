package cmd

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
)

// A call that waits behind another's rate limit waits no longer than its
// own --timeout, and then says so. get_run_failures is answered 429 every
// time, asking for a second's wait: its ten retries keep the client's
// turn for ten seconds. get_diff_stats, sent once get_run_failures is
// being retried, ends a second after it was sent (it ended when
// get_run_failures gave up), saying it timed out waiting for its turn
// behind rate-limited calls. The time is counted in get_run_failures'
// requests, a second apart: get_diff_stats must end before the fifth.
func TestMCPServeCallWaitsItsTurnOnlyWithinItsTimeout(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	var limited, diffs atomic.Int32
	var answered atomic.Bool
	retried := make(chan struct{})
	srv := testkit.NewServer(t, func(c testkit.Call) testkit.Reply {
		switch c.Tool {
		case api.ToolRunFailures:
			if answered.Load() { // the test is done: its retries end
				return testkit.Answer(http.StatusOK, testkit.OK(c.Tool, "no failures", map[string]any{}))
			}
			if limited.Add(1) == 2 {
				close(retried) // it holds the turn, and the client is rate limited
			}
			return testkit.Answer(http.StatusTooManyRequests, testkit.RateLimit(c.Tool, "slow down", 1000))
		case api.ToolDiffStats:
			// Should it come before the client is rate limited, its own
			// 429 sends it to wait for its turn all the same.
			if diffs.Add(1) == 1 {
				return testkit.Answer(http.StatusTooManyRequests, testkit.RateLimit(c.Tool, "slow down", 1))
			}
			return testkit.Answer(http.StatusOK, testkit.OK(c.Tool, "no difference", map[string]any{}))
		}
		return testkit.Answer(http.StatusNotFound, "")
	})
	s := serveVQ(t, srv.Env(), "--timeout", "1s")
	s.tools(t)

	var wg sync.WaitGroup
	wg.Go(func() {
		_, _ = s.session.CallTool(ctx, &mcp.CallToolParams{Name: api.ToolRunFailures, Arguments: map[string]any{"runId": "run_abc"}})
	})
	testkit.Receive(t, ctx, retried, "get_run_failures' second request")

	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: api.ToolDiffStats, Arguments: map[string]any{"runId": "run_abc", "scenarioLabel": "home", "viewport": "desktop"}})
	waited := limited.Load()
	answered.Store(true)
	wg.Wait() // get_run_failures is answered at its next retry
	if err != nil {
		t.Fatalf("get_diff_stats: %v\nstderr: %s", err, s.stderr)
	}
	if waited >= 5 {
		t.Errorf("get_diff_stats ended after %d requests of get_run_failures, a second apart; its timeout is 1s", waited)
	}
	resp := structured(t, res)
	if resp.ErrorCode() != api.CodeTimeout || !strings.Contains(resp.ErrorMessage(), "get_diff_stats timed out after 1s waiting for its turn behind rate-limited calls") {
		t.Errorf("get_diff_stats answered %+v: %s", resp, resultText(res))
	}
}
