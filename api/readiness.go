package api

import (
	"context"
	"strconv"
	"time"
)

// The import readiness lock, on either transport: while a project's first
// import is analysed, a tool that changes the project is refused with code
// project_not_ready (vq's convention, which the sandbox implements) and a
// message saying how far the analysis has got, as "3 of 5 sources
// analysed". Servers that use another code are recognised by that phrase.
// It is a refusal: never retried, shown as progress, and waited out only
// with --wait (AwaitReady).
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

// ParseReadiness reads how far the analysis has got from the lock's phrase
// in text ("3 of 5 sources analysed"); false when text has none.
func ParseReadiness(text string) (Readiness, bool) {
	m := readinessPhrase().FindStringSubmatch(text)
	if m == nil {
		return Readiness{}, false
	}
	done, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	return Readiness{Analysed: done, Total: total}, true
}

// AwaitReady waits out the readiness lock in the watch's loop, politely
// (the analysis takes minutes): while resp is the lock's refusal, it waits
// 15s, doubling to a minute (or o.Interval), then sends the call again
// (send: a whole call, with its own retries), each refusal told to
// o.OnUpdate as a Failure with its RetryIn. It answers the first answer
// that is not the lock, past o.Timeout the last; err only when ctx ended.
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

// sent is the budget of a poll that is a whole call, retried as one: none.
func sent(*ToolResponse) (time.Duration, bool) { return 0, false }
