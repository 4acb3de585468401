package mcpclient_test

import (
	"context"
	"testing"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/internal/testkit"
)

// A call vq gives up on is cancelled at the server before the session
// closes (notifications/cancelled for its request, or on 2026-07-28 over
// HTTP its stream closed, as that revision says), whatever ended it (the
// bound of --timeout, the idle bound, a wait's deadline as --wait-timeout
// sets, the interrupt of Ctrl-C or the TUI's cancel), over each transport.
func TestAGivenUpCallIsCancelledAtTheServer(t *testing.T) {
	t.Parallel()
	// giveUp is how long the call runs before vq gives up on it: time for
	// a stdio server (this test binary) to start and take the call on a
	// loaded machine. At 200ms vq gave up there before it had sent the
	// call, which left nothing to cancel.
	const giveUp = 2 * time.Second
	for _, tc := range []struct {
		name string
		opts mcpclient.Options
		call func(context.Context) (context.Context, context.CancelFunc)
	}{
		{"--timeout", mcpclient.Options{Options: api.Options{Timeout: giveUp}, CallBound: true}, nil},
		{"idle bound", mcpclient.Options{Options: api.Options{Timeout: giveUp}}, nil},
		{"--wait-timeout", mcpclient.Options{}, func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, giveUp)
		}},
		{"interrupt", mcpclient.Options{}, func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(giveUp, cancel)
			return ctx, cancel
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := testkit.Bound(t)
			for name, server := range inputServers(t) {
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					opts := tc.opts
					opts.OverMCP, opts.Endpoint, opts.StdioEnv, opts.NoRetry = true, server.opts.Endpoint, server.opts.StdioEnv, true
					c := mcpclient.New(opts)
					callCtx, cancel := ctx, context.CancelFunc(func() {})
					if tc.call != nil {
						callCtx, cancel = tc.call(ctx)
					}
					resp, _ := c.Invoke(callCtx, api.Call{Tool: "block"})
					cancel()
					if resp.OK {
						t.Error("the blocked call answered ok")
					}
					// Over HTTP on 2026-07-28 the closed stream is the signal
					// (no notice is expected); elsewhere the notice is.
					want := "notifications/cancelled "
					if name == "http 2026-07-28" {
						want = "block cancelled"
					}
					// The notice is sent before Invoke returns, and recorded as
					// the server's transport takes it; a handler's end is its
					// own. It is looked for before Close ends a stdio server,
					// which a loaded machine may not have let read it yet.
					if !server.received(ctx, want) {
						t.Error("the server was never told of the cancelled call")
					}
					c.Close()
				})
			}
		})
	}
}
