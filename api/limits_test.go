package api

import (
	"context"
	"testing"
)

// TestRateLimitStormStopsAfterTenRetries: a server that asks for tiny waits
// forever is asked 1+MaxRateLimitRetries times, not for the whole budget.
func TestRateLimitStormStopsAfterTenRetries(t *testing.T) {
	s := newServer(t, reply{429, errBodyWithRetry(1), nil})
	resp, err := s.client(Options{}).Invoke(context.Background(), Call{Tool: "t"})
	if err != nil || resp.ErrorCode() != CodeRateLimit {
		t.Fatalf("code %q, err %v", resp.ErrorCode(), err)
	}
	if got := s.hits.Load(); got != 1+MaxRateLimitRetries {
		t.Errorf("%d requests, want %d", got, 1+MaxRateLimitRetries)
	}
}
