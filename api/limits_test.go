package api

import (
	"testing"

	"github.com/visualq/vq/internal/testkit"
)

// TestRateLimitStormStopsAfterTenRetries: a server that asks for tiny waits
// forever is asked 1+MaxRateLimitRetries times, not for the whole budget.
func TestRateLimitStormStopsAfterTenRetries(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := testkit.NewServer(t, testkit.Always(429, testkit.RateLimit("t", "msg rate_limit", 1, testkit.Summary("rate_limit"))))
	resp, err := newClient(s, Options{}).Invoke(ctx, Call{Tool: "t"})
	if err != nil || resp.ErrorCode() != CodeRateLimit {
		t.Fatalf("code %q, err %v", resp.ErrorCode(), err)
	}
	if got := s.Count(); got != 1+MaxRateLimitRetries {
		t.Errorf("%d requests, want %d", got, 1+MaxRateLimitRetries)
	}
}
