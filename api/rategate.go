package api

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// rateLimitQuiet ends turn-taking, so vq mcp serve goes parallel again.
const rateLimitQuiet = time.Second

// rateGate makes a rate-limited client's calls take turns (through their
// retries): racing, a call could lose every retry to its neighbours.
type rateGate struct {
	limitedUntil atomic.Int64  // Unix nanoseconds
	turn         chan struct{} // held by the call whose turn it is; its holder owns notBefore
	notBefore    time.Time
	now          func() time.Time
}

// limited reports calls taking turns; a nil gate (a watch's polls) has none.
func (g *rateGate) limited() bool { return g != nil && g.now().UnixNano() < g.limitedUntil.Load() }

type gateTurn struct {
	gate *rateGate
	held bool
}

// before waits for the call's turn and the server's wait while rate limited.
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

func (t *gateTurn) done() {
	if t.held {
		<-t.gate.turn
		t.held = false
	}
}

// take takes the turn within ctx's turn deadline (a free one regardless).
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

// A turn deadline bounds a call's wait for its turn (vq mcp serve: per call).
type turnDeadlineKey struct{}

type turnDeadline struct {
	at      time.Time
	timeout time.Duration
}

// WithTurnTimeout gives the call sent with ctx a turn deadline.
func WithTurnTimeout(ctx context.Context, timeout time.Duration) context.Context {
	return context.WithValue(ctx, turnDeadlineKey{}, turnDeadline{at: time.Now().Add(timeout), timeout: timeout})
}

// AwaitTurn runs wait within ctx's turn deadline, else *TurnTimeoutError.
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

// TurnTimeoutError is a call that did not get its turn by its deadline.
type TurnTimeoutError struct {
	Timeout time.Duration
	Behind  string // "rate-limited calls"
}

func (e *TurnTimeoutError) Error() string {
	return fmt.Sprintf("timed out after %s waiting for its turn behind %s; call it again later", e.Timeout, e.Behind)
}

// Response is the recoverable timeout a call of tool ends with.
func (e *TurnTimeoutError) Response(tool string) *ToolResponse {
	return ClientError(tool, CodeTimeout, tool+" "+e.Error(), true)
}
