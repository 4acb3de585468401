package api

import (
	"context"
	"fmt"
	"time"
)

// MaxRateLimitRetries bounds how often one call is retried after rate
// limits, besides the waiting budget: a server that asks for tiny waits
// over and over is not hammered for the whole budget.
const MaxRateLimitRetries = 10

// Retry applies the contract's retry rules to one attempt function, the
// client's calls' and a transport's own requests' (an MCP tools/list):
// rate limits wait and retry within a budget, unexpected failures retry
// once, refusals and 401s never. The error is non-nil only when ctx ended.
func (c *Client) Retry(ctx context.Context, tool string, attempt func() *ToolResponse) (*ToolResponse, error) {
	var waited time.Duration
	rateLimited := 0
	retriedUnexpected := false
	for {
		resp := attempt()
		if err := ctx.Err(); err != nil {
			return resp, err
		}
		if c.opts.NoRetry {
			return resp, nil
		}
		var wait time.Duration
		switch {
		case resp.ErrorCode() == CodeRateLimit:
			wait = resp.RetryAfter()
			if waited+wait > c.opts.RateLimitBudget || rateLimited >= MaxRateLimitRetries {
				return resp, nil
			}
			waited += wait
			rateLimited++
			c.notify(fmt.Sprintf("%s: rate limited, retrying in %s", tool, wait.Round(time.Millisecond)))
		case resp.isUnexpected() && !retriedUnexpected:
			retriedUnexpected = true
			wait = 500 * time.Millisecond
			c.notify(fmt.Sprintf("%s: %s, retrying once", tool, resp.ErrorCode()))
		default:
			return resp, nil
		}
		if err := sleep(ctx, wait); err != nil {
			return resp, err
		}
	}
}

func (c *Client) notify(msg string) {
	if c.opts.Notify != nil {
		c.opts.Notify(msg)
	}
}

// isUnexpected is the failure class the contract retries once: a tool's
// unexpected error, or a transport failure that may pass on its own. A
// readiness lock is a refusal whatever code carries it: sending the call
// again is the loop its message asks not to make. A tool failure that may
// have left a change behind (repeatUnsafe) is never sent twice.
func (r *ToolResponse) isUnexpected() bool {
	if _, locked := ReadinessLock(r); locked {
		return false
	}
	return r.ErrorCode() == CodeToolError && !r.repeatUnsafe || r.transient
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
