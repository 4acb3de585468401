package api

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// MaxRateLimitRetries bounds how often one call is retried after rate
// limits, besides the waiting budget: a server that asks for tiny waits
// over and over is not hammered for the whole budget.
const MaxRateLimitRetries = 10

// unexpectedRetryWait is the pause before the one retry of an unexpected
// failure.
const unexpectedRetryWait = 500 * time.Millisecond

// The retry policy, one for every call whatever carries it (the invoke
// endpoint, MCP over HTTP or stdio, the CI endpoint), a single call's or a
// batch's, keyed on whether sending the call twice is safe:
//
//   - A rate limit changed nothing: it is waited out and retried, at most
//     MaxRateLimitRetries times and within the waiting budget; while the
//     server rate limits them, the client's calls take turns (rateGate).
//   - An unexpected failure (the tool's error, a transport failure that
//     may pass) is retried once, but only when the request provably never
//     reached the server (notSent) or the tool changes nothing
//     (ReadOnlyTool: the registry's word on its tools, whatever a server
//     says; an MCP server's readOnlyHint on any other).
//   - A call that may change something and whose request may have
//     reached the server with no answer vq can read (unanswered) is never
//     sent again: it ends as "may have been applied", with the call that
//     checks it (MayHaveBeenApplied).
//   - Refusals, 401s and the readiness lock are never retried.

// Retry applies the retry policy to the attempts of a request that reads
// (a transport's own tools/list, resources/read), which may always go
// again. The error is non-nil only when ctx ended.
func (c *Client) Retry(ctx context.Context, tool string, attempt func() *ToolResponse) (*ToolResponse, error) {
	return c.retry(ctx, Call{Tool: tool}, func() bool { return true }, attempt)
}

// retry applies the retry policy to the attempts of call; repeatable says
// whether the call may be sent twice, asked only when it matters.
func (c *Client) retry(ctx context.Context, call Call, repeatable func() bool, attempt func() *ToolResponse) (*ToolResponse, error) {
	var waited time.Duration
	rateLimited, retried := 0, false
	resp, err := resend(ctx, c.gate, call.Tool, func() (*ToolResponse, error) { return attempt(), nil }, func(resp *ToolResponse) (time.Duration, bool) {
		switch {
		case c.opts.NoRetry:
		case resp.ErrorCode() == CodeRateLimit:
			wait := resp.RetryAfter()
			if waited+wait > c.opts.RateLimitBudget || rateLimited >= MaxRateLimitRetries {
				return 0, false
			}
			waited += wait
			rateLimited++
			c.notify(fmt.Sprintf("%s: rate limited, retrying in %s", call.Tool, wait.Round(time.Millisecond)))
			return wait, true
		case resp.isUnexpected() && !retried && (resp.Failure.NotSent || repeatable()):
			retried = true
			c.notify(fmt.Sprintf("%s: %s, retrying once", call.Tool, resp.ErrorCode()))
			return unexpectedRetryWait, true
		}
		return 0, false
	})
	if err != nil {
		return resp, err
	}
	return settled(call, resp, repeatable), nil
}

// A budget is what one call may spend on sending its failed attempts
// again (a call's in retry, a watch's poll's in watch.budget): the wait
// before resp's call is sent again, or false.
type budget func(resp *ToolResponse) (wait time.Duration, again bool)

// resend is the one retry loop, every call's and every poll's: it makes
// attempts until again sends no more, and answers the last. While the
// server rate limits a client's calls they take turns at its gate (a
// watch's polls have none). The error is non-nil when ctx ended or
// attempt failed.
func resend(ctx context.Context, gate *rateGate, tool string, attempt func() (*ToolResponse, error), again budget) (*ToolResponse, error) {
	turn := gateTurn{gate: gate}
	defer turn.done()
	for {
		if late := turn.before(ctx); late != nil {
			return late.Response(tool), nil
		}
		resp, err := attempt()
		if err = cmp.Or(err, ctx.Err()); err != nil {
			return resp, err
		}
		wait, ok := again(resp)
		switch {
		case !ok:
			return resp, nil
		case gate != nil && resp.ErrorCode() == CodeRateLimit:
			turn.rateLimited(ctx, wait) // the turn holds the next attempt back for wait
		case sleep(ctx, wait) != nil:
			return resp, ctx.Err()
		}
	}
}

// settled is the answer a call ends with: an unanswered one of a call that
// may not be repeated may have been applied, and says so.
func settled(call Call, resp *ToolResponse, repeatable func() bool) *ToolResponse {
	if resp.Failure.Unanswered && !repeatable() {
		return resp.MayHaveBeenApplied(call)
	}
	return resp
}

// Repeatable reports whether a call of tool may be sent twice: a tool
// that changes nothing (ReadOnlyTool), the server's readOnlyHint counting
// where the transport has it and the registry does not know the tool.
func (c *Client) Repeatable(ctx context.Context, tool string) bool {
	hinted := false
	if h, ok := c.transport.(ReadOnlyHints); ok {
		hinted = h.ReadOnlyHint(ctx, tool)
	}
	return ReadOnlyTool(tool, hinted)
}

// ReadOnlyHints is a Transport that knows the server's readOnlyHint of the
// tools it listed.
type ReadOnlyHints interface {
	// ReadOnlyHint is the server's word on tool; false when it said
	// nothing of it.
	ReadOnlyHint(ctx context.Context, tool string) bool
}

// MayHaveBeenApplied is the unanswered failure r of call, a call that may
// change something, as it ends: not sent again, and said to have maybe
// been carried out, with the call that checks whether it was (a next
// action) where the registry knows one.
func (r *ToolResponse) MayHaveBeenApplied(call Call) *ToolResponse {
	check, checkable := CheckCall(call)
	how := "check on the server before sending it again"
	if checkable {
		how = "check with " + check.Tool + " before sending it again"
	}
	msg := fmt.Sprintf("%s may have been applied: %s; vq did not send it again: %s", call.Tool, r.ErrorMessage(), how)
	out := r.derive()
	out.Summary, out.Data = msg, json.RawMessage("null")
	out.Error, out.Recoverable = &ToolError{Code: CodeMaybeApplied, Message: msg}, boolPtr(false)
	out.Failure.Transient, out.Failure.Unanswered = false, false
	out.NextActions = []NextAction{}
	if checkable {
		out.NextActions = []NextAction{{Label: "Check whether " + call.Tool + " was applied", Tool: check.Tool, Args: check.Args}}
	}
	return out
}

func (c *Client) notify(msg string) {
	if c.opts.Notify != nil {
		c.opts.Notify(msg)
	}
}

// isUnexpected is the failure class the contract retries once: a tool's
// unexpected error, or a transport failure that may pass on its own. A
// readiness lock is a refusal whatever code carries it: sending the call
// again is the loop its message asks not to make. A failure that would
// only come again the same way (RepeatUnsafe) is never sent twice.
func (r *ToolResponse) isUnexpected() bool {
	if _, locked := ReadinessLock(r); locked {
		return false
	}
	return r.ErrorCode() == CodeToolError && !r.Failure.RepeatUnsafe || r.Failure.Transient
}

// maxRetryAfterMs clamps a server's wait: a day is past any budget, so a
// wait that large (or one that would overflow a Duration) is simply more
// than vq waits, never a negative "retry in -1ms".
const maxRetryAfterMs = int64(24 * time.Hour / time.Millisecond)

// RetryAfter is how long a rate-limited call should wait, from the body's
// retryAfterMs (or Retry-After), else one second; a day at most, so that
// no wait overflows.
func (r *ToolResponse) RetryAfter() time.Duration {
	if r.RetryAfterMs > 0 {
		return time.Duration(min(r.RetryAfterMs, maxRetryAfterMs)) * time.Millisecond
	}
	return time.Second
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
