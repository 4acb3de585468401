package api

import (
	"context"
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

func (g *rateGate) limited() bool { return g.now().UnixNano() < g.limitedUntil.Load() }

// gateTurn is one call's place at the gate.
type gateTurn struct {
	gate *rateGate
	held bool
}

// before waits, while the client is rate limited, for the call's turn and
// for the server's wait; it returns early when ctx ends.
func (t *gateTurn) before(ctx context.Context) {
	if !t.held && t.gate.limited() {
		t.take(ctx)
	}
	if t.held {
		_ = sleep(ctx, t.gate.notBefore.Sub(t.gate.now())) // ctx's end is the caller's to see
	}
}

// rateLimited records the server's wait before the call's next attempt.
func (t *gateTurn) rateLimited(ctx context.Context, wait time.Duration) {
	next := t.gate.now().Add(wait)
	until := next.Add(rateLimitQuiet).UnixNano()
	for old := t.gate.limitedUntil.Load(); old < until && !t.gate.limitedUntil.CompareAndSwap(old, until); {
		old = t.gate.limitedUntil.Load()
	}
	if !t.held {
		t.take(ctx)
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

func (t *gateTurn) take(ctx context.Context) {
	select {
	case t.gate.turn <- struct{}{}:
		t.held = true
	case <-ctx.Done():
	}
}
