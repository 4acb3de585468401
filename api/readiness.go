package api

import (
	"context"
	"strconv"
	"time"
)

// CodeProjectNotReady is the readiness lock's refusal (also known by its
// phrase); never retried, waited out only with --wait.
const CodeProjectNotReady = "project_not_ready"

// Readiness is how far a locked project's analysis has got.
type Readiness struct {
	Analysed, Total int
}

var readinessPhrase = lazyRegexp(`(?i)\b(\d+) of (\d+) sources? (?:analysed|analyzed)\b`)

// ReadinessLock reports whether r is the readiness lock's refusal.
func ReadinessLock(r *ToolResponse) (Readiness, bool) {
	if r == nil || r.OK {
		return Readiness{}, false
	}
	state, found := ParseReadiness(r.ErrorMessage())
	return state, found || r.ErrorCode() == CodeProjectNotReady
}

// ParseReadiness reads the lock's phrase in text; false when it has none.
func ParseReadiness(text string) (Readiness, bool) {
	m := readinessPhrase().FindStringSubmatch(text)
	if m == nil {
		return Readiness{}, false
	}
	done, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	return Readiness{Analysed: done, Total: total}, true
}

// AwaitReady resends while locked, 15s doubling to a minute (or o.Interval);
// err only when ctx ended.
func AwaitReady(ctx context.Context, resp *ToolResponse, send PollFunc, o WatchOptions) (*ToolResponse, error) {
	policy := NewPolicy(WatchOptions{Interval: o.Interval, MinInterval: 15 * time.Second, MaxInterval: time.Minute})
	policy.backoff = 2
	w := &watch{o: o, start: time.Now(), policy: policy}
	ask := func(ctx context.Context) (*ToolResponse, error) {
		r, err := send(ctx)
		if r != nil {
			resp = r
		}
		return r, err
	}
	final, err := w.run(ctx, resp, ask, func() budget { return sent }, func(r *ToolResponse) (time.Duration, *ToolResponse) {
		if _, locked := ReadinessLock(r); !locked {
			return 0, r
		}
		wait := policy.Next(false)
		w.notify(JobUpdate{Failure: r, RetryIn: wait})
		return wait, nil
	})
	if err != nil { // past the bound, the last answer is the answer
		return resp, ctx.Err()
	}
	return final, nil
}

// sent is the budget of a poll that is a whole call: none.
func sent(*ToolResponse) (time.Duration, bool) { return 0, false }
