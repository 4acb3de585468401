package api

import (
	"context"
	"sync/atomic"
	"time"
)

// rateGate paces a client's calls once the server has rate limited one of
// them. From then on its calls take turns: one call at a time is sent,
// and keeps its turn through its rate-limit retries, each attempt no
// earlier than the wait the server last asked for. The calls of a batch
// then wait for the server's next free slot in line instead of racing each
// other for it, where a call can lose every one of its retries to the
// calls sent beside it.
type rateGate struct {
	limited atomic.Bool
	// turn is held by the call whose turn it is; its holder owns
	// notBefore.
	turn      chan struct{}
	notBefore time.Time
}

func newRateGate() *rateGate { return &rateGate{turn: make(chan struct{}, 1)} }

// gateTurn is one call's place at the gate.
type gateTurn struct {
	gate *rateGate
	held bool
}

// before waits, once the client has been rate limited, for the call's
// turn and for the server's wait; it returns early when ctx ends.
func (t *gateTurn) before(ctx context.Context) {
	if !t.held && t.gate.limited.Load() {
		t.take(ctx)
	}
	if t.held {
		_ = sleep(ctx, time.Until(t.gate.notBefore)) // ctx's end is the caller's to see
	}
}

// rateLimited records the server's wait before the call's next attempt.
func (t *gateTurn) rateLimited(ctx context.Context, wait time.Duration) {
	t.gate.limited.Store(true)
	if !t.held {
		t.take(ctx)
	}
	if t.held {
		if next := time.Now().Add(wait); next.After(t.gate.notBefore) {
			t.gate.notBefore = next
		}
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
