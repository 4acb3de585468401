package testkit

import (
	"context"
	"fmt"
	"runtime/debug"
	"testing"
	"time"
)

// Patience is how long a test may wait on anything (a call, a server's
// handler, a channel) before it is taken to be stuck: far above what any
// test needs on a loaded machine under -race, far below go test's own
// ten-minute timeout, so that a stuck test fails in seconds and says where.
const Patience = 20 * time.Second

// Bound is the context a test's waits end by: it ends when the test does,
// or Patience after Bound was called. Call it first in a test, before the
// test starts its servers: a test that is still running (its cleanups
// included: a server whose Close waits on a handler) Patience after the
// waits ended is stopped, the test binary printing every goroutine's stack,
// as a stuck cleanup cannot be failed any other way. The goroutines the
// test starts are checked too (NoLeaks).
func Bound(t testing.TB) context.Context {
	t.Helper()
	name := t.Name()
	watchdog := time.AfterFunc(2*Patience+leakGrace, func() {
		debug.SetTraceback("all")
		panic(fmt.Sprintf("%s is stuck: still running %v after it started (its waits ended at %v); the goroutines follow", name, 2*Patience+leakGrace, Patience))
	})
	// Cleanups run last registered first: the watchdog's runs after every
	// cleanup the test registers once Bound returns, and the look for
	// leaks after the context has ended, which ends what waits on it.
	t.Cleanup(func() { watchdog.Stop() })
	NoLeaks(t)
	ctx, cancel := context.WithTimeout(t.Context(), Patience)
	t.Cleanup(cancel)
	return ctx
}

// Receive is the next value on ch, waited for until ctx ends; the test
// fails at once when ctx ends first, saying what it waited for.
func Receive[T any](t testing.TB, ctx context.Context, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatalf("still waiting for %s: %v", what, context.Cause(ctx))
		var zero T
		return zero
	}
}
