package ui

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
)

// A batch waits out rate limits itself, every worker together; the client
// it sends through answers them at once instead of waiting per call, which
// would wait twice (and past the batch's stop).
func TestABatchWaitsOutRateLimitsOnceNotPerCall(t *testing.T) {
	limited := `{"ok":false,"tool":"approve_vrt_results","summary":"slow down","data":null,"warnings":[],"nextActions":[],"error":{"code":"rate_limit","message":"slow down"},"recoverable":true,"retryAfterMs":20}`
	s := testkit.NewServer(t, testkit.Script(testkit.Answer(429, limited), testkit.Answer(200, testkit.OK("approve_vrt_results", "approved", map[string]any{}))))
	var mu sync.Mutex
	var notices []string
	client := api.New(api.Options{BaseURL: s.URL, APIKey: testkit.DefaultKey, Notify: func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		notices = append(notices, msg)
	}})
	calls := []api.Call{{Tool: "approve_vrt_results", Args: map[string]any{"n": 1}}, {Tool: "approve_vrt_results", Args: map[string]any{"n": 2}}}
	outcomes := RunBatch(context.Background(), calls, client.Invoke, BatchOptions{Concurrency: 1})
	if c := CountBatch(outcomes); c.Done != 2 {
		t.Fatalf("outcomes %+v, want both done", c)
	}
	if n := s.Count(); n != 3 {
		t.Errorf("the server got %d calls, want 3 (one refused for the rate limit, sent again once)", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(strings.Join(notices, "\n"), "rate limited") {
		t.Errorf("the client waited out the rate limit too: %q", notices)
	}
}
