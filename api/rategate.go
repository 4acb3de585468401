package api

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// rateLimitQuiet is how long past the wait a server last asked for a
// client's calls keep taking turns: a batch at the server's limit meets
// it call after call and stays in line; a long-lived client (vq mcp
// serve) the server stopped limiting sends its calls side by side again.
const rateLimitQuiet = time.Second

// rateGate paces a client's calls while the server rate limits them. Then
// its calls take turns: one call at a time is sent, and keeps its turn
// through its rate-limit retries, each attempt no earlier than the wait
// the server last asked for. The calls of a batch then wait for the
// server's next free slot in line instead of racing each other for it,
// where a call can lose every one of its retries to the calls sent beside
// it.
type rateGate struct {
	// limitedUntil (Unix nanoseconds) is when the calls stop taking turns.
	limitedUntil atomic.Int64
	// turn is held by the call whose turn it is; its holder owns
	// notBefore.
	turn      chan struct{}
	notBefore time.Time
	now       func() time.Time
}

func newRateGate() *rateGate { return &rateGate{turn: make(chan struct{}, 1), now: time.Now} }

// limited reports calls taking turns; a nil gate (a watch's polls) has none.
func (g *rateGate) limited() bool { return g != nil && g.now().UnixNano() < g.limitedUntil.Load() }

// gateTurn is one call's place at the gate.
type gateTurn struct {
	gate *rateGate
	held bool
}

// before waits, while the client is rate limited, for the call's turn and
// for the server's wait; it returns early when ctx ends (which is the
// caller's to see), and with the error when ctx's turn deadline
// (WithTurnTimeout) passed first.
func (t *gateTurn) before(ctx context.Context) *TurnTimeoutError {
	var late *TurnTimeoutError
	if !t.held && t.gate.limited() && errors.As(t.take(ctx), &late) {
		return late
	}
	if t.held {
		_ = sleep(ctx, t.gate.notBefore.Sub(t.gate.now()))
	}
	return nil
}

// rateLimited records the server's wait before the call's next attempt.
func (t *gateTurn) rateLimited(ctx context.Context, wait time.Duration) {
	next := t.gate.now().Add(wait)
	until := next.Add(rateLimitQuiet).UnixNano()
	for old := t.gate.limitedUntil.Load(); old < until && !t.gate.limitedUntil.CompareAndSwap(old, until); {
		old = t.gate.limitedUntil.Load()
	}
	if !t.held {
		_ = t.take(ctx) // a turn not taken is waited for again before the next attempt
	}
	if t.held && next.After(t.gate.notBefore) {
		t.gate.notBefore = next
	}
}

// done gives the turn back when the call has it.
func (t *gateTurn) done() {
	if t.held {
		<-t.gate.turn
		t.held = false
	}
}

// take takes the turn, waiting for it within ctx's turn deadline; a free
// turn is taken whatever the deadline.
func (t *gateTurn) take(ctx context.Context) error {
	err := AwaitTurn(ctx, "rate-limited calls", func(wait context.Context) error {
		select {
		case t.gate.turn <- struct{}{}:
			return nil
		default:
		}
		select {
		case t.gate.turn <- struct{}{}:
			return nil
		case <-wait.Done():
			return wait.Err()
		}
	})
	t.held = err == nil
	return err
}

// A turn deadline bounds a call's waits for its turn to be sent: behind
// the calls of a rate-limited client (the rate gate), behind the requests
// a caller lets be in flight at once (AwaitTurn). A batch has none: its
// calls wait in line as long as it takes, within the batch's own bound. A
// long-lived client serving calls that have nothing to do with each other
// (vq mcp serve) gives each its own, so that no call waits on another's
// rate limit past its timeout.
type turnDeadlineKey struct{}

type turnDeadline struct {
	at      time.Time
	timeout time.Duration
}

// WithTurnTimeout gives the call sent with ctx a turn deadline timeout
// from now.
func WithTurnTimeout(ctx context.Context, timeout time.Duration) context.Context {
	return context.WithValue(ctx, turnDeadlineKey{}, turnDeadline{at: time.Now().Add(timeout), timeout: timeout})
}

// AwaitTurn runs wait, which waits for a turn until its context ends,
// within ctx's turn deadline: past it the error is a *TurnTimeoutError
// naming what the call waited behind; otherwise it is wait's.
func AwaitTurn(ctx context.Context, behind string, wait func(context.Context) error) error {
	d, bounded := ctx.Value(turnDeadlineKey{}).(turnDeadline)
	if !bounded {
		return wait(ctx)
	}
	waitCtx, cancel := context.WithDeadline(ctx, d.at)
	defer cancel()
	err := wait(waitCtx)
	if err != nil && ctx.Err() == nil {
		return &TurnTimeoutError{Timeout: d.timeout, Behind: behind}
	}
	return err
}

// TurnTimeoutError is a call that did not get its turn to be sent by its
// turn deadline.
type TurnTimeoutError struct {
	Timeout time.Duration
	// Behind is what the call waited behind: "rate-limited calls".
	Behind string
}

func (e *TurnTimeoutError) Error() string {
	return fmt.Sprintf("timed out after %s waiting for its turn behind %s; call it again later", e.Timeout, e.Behind)
}

// Response is the answer of a call of tool that ended so: a timeout, which
// may pass.
func (e *TurnTimeoutError) Response(tool string) *ToolResponse {
	return ClientError(tool, CodeTimeout, tool+" "+e.Error(), true)
}
