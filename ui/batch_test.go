package ui

import (
	"context"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/visualq/vq/api"
)

// A batch keeps a few calls in flight, never more; stopped, it sends
// nothing more: the calls in flight may have been applied, the rest were
// not sent.
func TestStoppedBatchKeptAFewCallsInFlight(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		calls := make([]api.Call, 10)
		for i := range calls {
			calls[i] = api.Call{Tool: "approve_vrt_results", Args: map[string]any{"scenarioLabel": strconv.Itoa(i)}}
		}
		ctx, cancel := context.WithCancel(t.Context())
		sent := make(chan api.Call, len(calls))
		done := make(chan []BatchOutcome)
		go func() {
			done <- RunBatch(ctx, calls, func(ctx context.Context, c api.Call) (*api.ToolResponse, error) {
				sent <- c
				<-ctx.Done() // an answer that never comes
				return nil, ctx.Err()
			}, BatchOptions{})
		}()
		synctest.Wait() // every call that can go out is in flight
		inFlight := len(sent)
		cancel()
		counts := CountBatch(<-done)
		if inFlight != batchConcurrency || len(sent) != inFlight ||
			counts != (BatchCounts{MaybeApplied: batchConcurrency, NotSent: len(calls) - batchConcurrency}) {
			t.Errorf("%d calls in flight, %d sent in all; outcomes %+v; want %d in flight and no more sent",
				inFlight, len(sent), counts, batchConcurrency)
		}
	})
}
