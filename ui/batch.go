package ui

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
	"golang.org/x/sync/errgroup"
)

// BatchOptions tune RunBatch.
type BatchOptions struct {
	// OnDone is told of each call as it ends (one call at a time).
	OnDone func(i int, o BatchOutcome)
}

// batchConcurrency hides the round trip while a rate limit is met by waiting, not refusals.
const batchConcurrency = 4

// BatchState is how one call of a batch ended.
type BatchState int

const (
	BatchNotSent BatchState = iota // the batch was stopped before the call went out
	BatchDone                      // the tool answered ok
	BatchRefused                   // the tool answered with an error; nothing was done
	// BatchMaybeApplied: the call went out and its answer is unknown.
	BatchMaybeApplied
)

// BatchOutcome is one call of a batch and how it ended.
type BatchOutcome struct {
	Call  api.Call
	Resp  *api.ToolResponse // the answer; nil when none came.
	Err   error
	State BatchState
}

// RunBatch sends each distinct call once, a few at a time, until done or ctx ends: an outcome
// per distinct call, in order, with no retry beyond send's own.
func RunBatch(ctx context.Context, calls []api.Call, send func(context.Context, api.Call) (*api.ToolResponse, error), opts BatchOptions) []BatchOutcome {
	calls = api.UniqueCalls(calls)
	outcomes := make([]BatchOutcome, len(calls))
	var (
		g      errgroup.Group
		report sync.Mutex
	)
	g.SetLimit(batchConcurrency)
	for i, c := range calls {
		outcomes[i] = BatchOutcome{Call: c}
		if ctx.Err() != nil {
			continue // stopped before it went out
		}
		g.Go(func() error {
			o := sendOne(ctx, c, send)
			report.Lock()
			defer report.Unlock()
			outcomes[i] = o
			if opts.OnDone != nil {
				opts.OnDone(i, o)
			}
			return nil
		})
	}
	_ = g.Wait() // no call fails the group: each outcome says how it ended
	return outcomes
}

func sendOne(ctx context.Context, call api.Call, send func(context.Context, api.Call) (*api.ToolResponse, error)) BatchOutcome {
	o := BatchOutcome{Call: call}
	if ctx.Err() != nil {
		return o // stopped before it went out
	}
	o.Resp, o.Err = send(ctx, call)
	switch code := o.Resp.ErrorCode(); {
	case o.Resp != nil && o.Resp.OK:
		o.State = BatchDone
	case code == api.CodeMaybeApplied:
		o.State = BatchMaybeApplied
	case ctx.Err() != nil && code != api.CodeRateLimit:
		// Stopped in flight; a rate limit being waited out did nothing.
		o.State = BatchMaybeApplied
	default:
		if o.Err == nil && o.Resp == nil {
			o.Err = errors.New("no answer")
		}
		o.State = BatchRefused
	}
	return o
}

// BatchCounts are how many calls of a batch ended each way.
type BatchCounts struct {
	Done, Refused, MaybeApplied, NotSent int
}

func CountBatch(outcomes []BatchOutcome) BatchCounts {
	var c BatchCounts
	for _, o := range outcomes {
		switch o.State {
		case BatchDone:
			c.Done++
		case BatchRefused:
			c.Refused++
		case BatchMaybeApplied:
			c.MaybeApplied++
		default:
			c.NotSent++
		}
	}
	return c
}

// batchHead counts a batch in words when vq knows the write ("Approved 36 checks; 1 refused"), else
// as "tool: 36 done, 1 refused".
func batchHead(tool string, outcomes []BatchOutcome) string {
	c := CountBatch(outcomes)
	head, sep := textsafe.SanitizeLine(tool)+": "+strconv.Itoa(c.Done)+" done", ", "
	if spec, ok := api.LookupTool(tool); ok && spec.Verb != "" && len(outcomes) > 0 {
		noun := layout.Plural(c.Done, " row", " rows")
		if isCheck(outcomes[0].Call) {
			noun = layout.Plural(c.Done, " check", " checks")
		}
		head, sep = strings.ToUpper(spec.Verb[:1])+strings.TrimSuffix(spec.Verb[1:], "e")+"ed "+strconv.Itoa(c.Done)+noun, "; "
	}
	for _, part := range []struct {
		n    int
		what string
	}{{c.Refused, " refused"}, {c.MaybeApplied, " may have been applied"}, {c.NotSent, " not sent"}} {
		if part.n > 0 {
			head += sep + strconv.Itoa(part.n) + part.what
			sep = ", "
		}
	}
	return head
}

// BatchSummary is the batch's sanitized report: counts, then at most limit refused, maybe applied and unsent calls.
func BatchSummary(tool string, outcomes []BatchOutcome, describe func(api.Call) string, limit int) []string {
	lines := []string{batchHead(tool, outcomes)}
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
	reason := func(o BatchOutcome) string {
		switch {
		case o.Resp != nil && !o.Resp.OK && (o.State == BatchRefused || o.Err == nil):
			return textsafe.SanitizeLine(o.Resp.ErrorCode() + ": " + o.Resp.ErrorMessage())
		case o.State == BatchMaybeApplied:
			return "in flight when the batch was stopped"
		case o.Err != nil:
			return textsafe.SanitizeLine(o.Err.Error())
		}
		return ""
	}
	list(BatchRefused, "refused", reason)
	list(BatchMaybeApplied, "may have been applied", reason)
	list(BatchNotSent, "not sent", func(BatchOutcome) string { return "" })
	return lines
}
