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
	ctx := testkit.Bound(t)
	for _, tc := range []struct {
		name string
		opts mcpclient.Options
		call func(context.Context) (context.Context, context.CancelFunc)
	}{
		{"--timeout", mcpclient.Options{Options: api.Options{Timeout: 200 * time.Millisecond}, CallBound: true}, nil},
		{"idle bound", mcpclient.Options{Options: api.Options{Timeout: 200 * time.Millisecond}}, nil},
		{"--wait-timeout", mcpclient.Options{}, func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 200*time.Millisecond)
		}},
		{"interrupt", mcpclient.Options{}, func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(200*time.Millisecond, cancel)
			return ctx, cancel
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, server := range inputServers(t) {
				opts := tc.opts
				opts.OverMCP, opts.Endpoint, opts.StdioEnv, opts.NoRetry = true, server.opts.Endpoint, server.opts.StdioEnv, true
				c := mcpclient.New(opts)
				callCtx, cancel := ctx, context.CancelFunc(func() {})
				if tc.call != nil {
					callCtx, cancel = tc.call(ctx)
				}
				resp, _ := c.Invoke(callCtx, api.Call{Tool: "block"})
				cancel()
				c.Close()
				if resp.OK {
					t.Errorf("%s: the blocked call answered ok", name)
				}
				// Over HTTP on 2026-07-28 the closed stream is the signal
				// (no notice is expected); elsewhere the notice is.
				want := "notifications/cancelled "
				if name == "http 2026-07-28" {
					want = "block cancelled"
				}
				// The notice is recorded as the server's transport takes it,
				// before Invoke returns (a stdio server's record is read
				// once Close has ended it); a handler's end is its own.
				if !server.received(ctx, want) {
					t.Errorf("%s: the server was never told of the cancelled call", name)
				}
			}
		})
	}
}
