package api

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// MaxRateLimitRetries bounds rate-limit retries, so tiny waits can't hammer.
const MaxRateLimitRetries = 10

const unexpectedRetryWait = 500 * time.Millisecond

// The retry policy, every call's whatever carries it:
//   - a rate limit is waited out and retried (bounded; calls take turns);
//   - an unexpected failure is retried once, only when the request was
//     never sent or the tool is read-only (ReadOnlyTool);
//   - an unanswered call that may change something is never sent again
//     (MayHaveBeenApplied);
//   - refusals, 401s and the readiness lock are never retried.

// Retry applies the policy to an always-repeatable read; err only if ctx ended.
func (c *Client) Retry(ctx context.Context, tool string, attempt func() *ToolResponse) (*ToolResponse, error) {
	return c.retry(ctx, Call{Tool: tool}, func() bool { return true }, attempt)
}

// retry applies the retry policy to call.
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
	if err == nil && resp.Failure.Unanswered && !repeatable() {
		return resp.MayHaveBeenApplied(call), nil
	}
	return resp, err
}

// A budget says, of a failed attempt, the wait before sending it again, or false.
type budget func(resp *ToolResponse) (wait time.Duration, again bool)

// resend is the one retry loop (calls and polls; gate nil for polls).
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

// ReadOnlyHints is a Transport that knows its tools' readOnlyHint.
type ReadOnlyHints interface {
	ReadOnlyHint(ctx context.Context, tool string) bool
}

// MayHaveBeenApplied ends an unanswered changing call: not resent, with a
// check as next action.
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

// isUnexpected is the class the contract retries once (not the readiness lock
// nor RepeatUnsafe).
func (r *ToolResponse) isUnexpected() bool {
	if _, locked := ReadinessLock(r); locked {
		return false
	}
	return r.ErrorCode() == CodeToolError && !r.Failure.RepeatUnsafe || r.Failure.Transient
}

// maxRetryAfterMs (a day) clamps a server's wait so a Duration can't overflow.
const maxRetryAfterMs = int64(24 * time.Hour / time.Millisecond)

// RetryAfter is a rate-limited call's wait: the server's, else 1s; a day max.
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
