package ui

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// BatchOptions tune RunBatch.
type BatchOptions struct {
	// Concurrency is how many calls are in flight at once; 0 means
	// DefaultBatchConcurrency.
	Concurrency int
	// OnDone is told of each call as it ends (from the workers, one call
	// at a time).
	OnDone func(i int, o BatchOutcome)
}

// DefaultBatchConcurrency keeps a few calls in flight: enough to hide the
// round trip, few enough that a rate limit is met by waiting, not by a
// burst of refusals.
const DefaultBatchConcurrency = 4

// maxRateWaits bounds how often one call of a batch waits out a rate
// limit before its refusal is taken as the answer.
const maxRateWaits = 20

// BatchState is how one call of a batch ended.
type BatchState int

const (
	// BatchNotSent: the batch was stopped before the call went out.
	BatchNotSent BatchState = iota
	// BatchDone: the tool answered ok.
	BatchDone
	// BatchRefused: the tool answered with an error.
	BatchRefused
	// BatchInterrupted: the batch was stopped while the call was in
	// flight; the server may have acted on it.
	BatchInterrupted
)

// BatchOutcome is one call of a batch and how it ended.
type BatchOutcome struct {
	Call api.Call
	// Resp is the answer; nil when none came.
	Resp  *api.ToolResponse
	Err   error
	State BatchState
}

// RunBatch sends every call once, at most opts.Concurrency at a time,
// until all are answered or ctx ends; it returns an outcome per call, in
// the calls' order. Each call is handed to exactly one worker, so none is
// sent twice. A rate-limit refusal did nothing on the server: the call
// waits retryAfterMs (every worker then holds off, as the limit is the
// key's) and goes again, a bounded number of times. Any other answer,
// refusals included, is final.
func RunBatch(ctx context.Context, calls []api.Call, send func(context.Context, api.Call) (*api.ToolResponse, error), opts BatchOptions) []BatchOutcome {
	workers := opts.Concurrency
	if workers <= 0 {
		workers = DefaultBatchConcurrency
	}
	outcomes := make([]BatchOutcome, len(calls))
	for i, c := range calls {
		outcomes[i] = BatchOutcome{Call: c}
	}
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range calls {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var (
		report sync.Mutex
		gate   rateGate
		wg     sync.WaitGroup
	)
	for range min(workers, len(calls)) {
		wg.Go(func() {
			for i := range next {
				o := sendOne(ctx, calls[i], send, &gate)
				report.Lock()
				outcomes[i] = o
				if opts.OnDone != nil {
					opts.OnDone(i, o)
				}
				report.Unlock()
			}
		})
	}
	wg.Wait()
	return outcomes
}

// sendOne sends one call of a batch, waiting out rate limits.
func sendOne(ctx context.Context, call api.Call, send func(context.Context, api.Call) (*api.ToolResponse, error), gate *rateGate) BatchOutcome {
	o := BatchOutcome{Call: call}
	for waits := 0; ; waits++ {
		if err := gate.wait(ctx); err != nil {
			// Stopped before the call went out, or while it waited out a
			// rate limit, which the server did not act on either.
			o.State = BatchNotSent
			return o
		}
		resp, err := send(ctx, call)
		o.Resp, o.Err = resp, err
		switch {
		case ctx.Err() != nil && (err != nil || resp == nil || resp.ErrorCode() == api.CodeHTTPError):
			o.State = BatchInterrupted
			return o
		case err != nil || resp == nil:
			if err == nil {
				o.Err = errors.New("no answer")
			}
			o.State = BatchRefused
			return o
		case resp.OK:
			o.State = BatchDone
			return o
		case resp.ErrorCode() == api.CodeRateLimit && waits < maxRateWaits:
			gate.hold(resp.RetryAfter())
			continue
		}
		o.State = BatchRefused
		return o
	}
}

// rateGate holds every worker of a batch until a rate limit's wait is
// over.
type rateGate struct {
	mu    sync.Mutex
	until time.Time
}

func (g *rateGate) hold(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t := time.Now().Add(d); t.After(g.until) {
		g.until = t
	}
}

func (g *rateGate) wait(ctx context.Context) error {
	g.mu.Lock()
	d := time.Until(g.until)
	g.mu.Unlock()
	if err := ctx.Err(); err != nil || d <= 0 {
		return err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// BatchCounts are how many calls of a batch ended each way.
type BatchCounts struct {
	Done, Refused, Interrupted, NotSent int
}

// CountBatch counts the outcomes by state.
func CountBatch(outcomes []BatchOutcome) BatchCounts {
	var c BatchCounts
	for _, o := range outcomes {
		switch o.State {
		case BatchDone:
			c.Done++
		case BatchRefused:
			c.Refused++
		case BatchInterrupted:
			c.Interrupted++
		default:
			c.NotSent++
		}
	}
	return c
}

// BatchSummary is the batch's report for a person: a count line, then the
// refusals with their reasons, the calls that were in flight when it was
// stopped and those never sent, at most limit of each (the rest counted),
// each call named by describe. It is sanitized.
func BatchSummary(tool string, outcomes []BatchOutcome, describe func(api.Call) string, limit int) []string {
	c := CountBatch(outcomes)
	head := textsafe.SanitizeLine(tool) + ": " + strconv.Itoa(c.Done) + " done"
	if c.Refused > 0 {
		head += ", " + strconv.Itoa(c.Refused) + " refused"
	}
	if c.Interrupted > 0 {
		head += ", " + strconv.Itoa(c.Interrupted) + " stopped in flight (may have been applied)"
	}
	if c.NotSent > 0 {
		head += ", " + strconv.Itoa(c.NotSent) + " not sent"
	}
	lines := []string{head}
	list := func(state BatchState, title string, reason func(BatchOutcome) string) {
		shown, total := 0, 0
		for _, o := range outcomes {
			if o.State != state {
				continue
			}
			total++
			if shown < limit {
				line := "  " + title + " " + textsafe.SanitizeLine(describe(o.Call))
				if r := reason(o); r != "" {
					line += ": " + r
				}
				lines = append(lines, line)
				shown++
			}
		}
		if total > shown {
			lines = append(lines, "  … and "+strconv.Itoa(total-shown)+" more "+title)
		}
	}
	list(BatchRefused, "refused", func(o BatchOutcome) string {
		if o.Err != nil {
			return textsafe.SanitizeLine(o.Err.Error())
		}
		return textsafe.SanitizeLine(o.Resp.ErrorCode() + ": " + o.Resp.ErrorMessage())
	})
	list(BatchInterrupted, "in flight", func(BatchOutcome) string { return "" })
	list(BatchNotSent, "not sent", func(BatchOutcome) string { return "" })
	return lines
}
