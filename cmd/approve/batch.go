package approve

import (
	"context"
	"fmt"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui"
)

// batch sends calls consent was given for, a few at a time (ui.RunBatch:
// each distinct call once), each through the sender of a single call, so
// each gets its hints, retries and bounds and the batch costs what its
// calls cost one by one; bound ends the whole batch (--wait-timeout). It
// says on stderr how each call ended; Ctrl-C stops it, and the summary
// says what was not sent.
type batch struct {
	send  func(context.Context, api.Call) (*api.ToolResponse, error)
	print format.Printer
	tool  string
	bound time.Duration
	// done is how a call that went through is reported ("approved").
	done string
	// describe names a call for a person.
	describe func(api.Call) string
}

// run sends the calls and returns an outcome each, in their order, and
// whether the bound ended the batch; the error is ctx's when the batch was
// stopped.
func (b batch) run(ctx context.Context, calls []api.Call) (outcomes []ui.BatchOutcome, bounded bool, err error) {
	bctx, cancel := context.WithTimeout(ctx, b.bound)
	defer cancel()
	total := len(api.UniqueCalls(calls)) // each sent once
	finished := 0                        // OnDone is told of one call at a time
	outcomes = ui.RunBatch(bctx, calls, b.send, ui.BatchOptions{OnDone: func(i int, o ui.BatchOutcome) {
		finished++
		state := b.done
		switch o.State {
		case ui.BatchRefused:
			state = "refused"
		case ui.BatchMaybeApplied:
			state = "may have been applied:"
		case ui.BatchNotSent:
			return
		}
		b.print.Note(fmt.Sprintf("[%d/%d] %s %s", finished, total, state, textsafe.SanitizeLine(b.describe(o.Call))))
	}})
	if err := ctx.Err(); err != nil {
		for _, l := range ui.BatchSummary(b.tool, outcomes, b.describe, len(outcomes)) {
			b.print.Note(l)
		}
		return outcomes, false, err
	}
	return outcomes, bctx.Err() != nil, nil
}
