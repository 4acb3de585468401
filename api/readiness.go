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
// analysed". Servers that use another code are recognised by that phrase. It is a refusal: never retried by Client.Retry, shown as
// progress, and waited out only with --wait, politely.
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

// The polite schedule of --wait on a locked project: the analysis takes
// minutes, so vq asks rarely and ever more rarely.
const (
	ReadinessMinWait = 15 * time.Second
	ReadinessMaxWait = 60 * time.Second
)

// ReadinessOptions tune AwaitReady.
type ReadinessOptions struct {
	// Interval, when set, is a fixed wait between calls (--interval);
	// otherwise the wait grows from ReadinessMinWait to ReadinessMaxWait.
	Interval time.Duration
	// OnWait hears of each refusal and how long vq now waits.
	OnWait func(r Readiness, wait time.Duration)
}

// AwaitReady waits out the readiness lock: while resp is the lock's
// refusal it waits, then asks again with send (the same call), and returns
// the first answer that is not the lock. err is non-nil only when ctx ended.
func AwaitReady(ctx context.Context, resp *ToolResponse, send PollFunc, o ReadinessOptions) (*ToolResponse, error) {
	wait := ReadinessMinWait
	if o.Interval > 0 {
		wait = o.Interval
	}
	for {
		state, locked := ReadinessLock(resp)
		if !locked {
			return resp, nil
		}
		if o.OnWait != nil {
			o.OnWait(state, wait)
		}
		if err := sleep(ctx, wait); err != nil {
			return resp, err
		}
		if o.Interval == 0 {
			wait = min(wait*2, ReadinessMaxWait)
		}
		var err error
		if resp, err = send(ctx); err != nil {
			return resp, err
		}
	}
}
