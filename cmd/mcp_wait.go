package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
)

// awaitReadiness handles the readiness lock's refusal (a project whose
// first import is still analysed): it is shown as progress and never
// retried; with --wait, vq waits politely, ever longer, and says so.
func (f *Factory) awaitReadiness(ctx context.Context, client *api.Client, s Settings, call api.Call, resp *api.ToolResponse) (*api.ToolResponse, error) {
	state, locked := api.ReadinessLock(resp)
	if !locked {
		return resp, nil
	}
	tool := format.SanitizeLine(call.Tool)
	if !f.Global.Wait {
		fmt.Fprintf(f.IO.ErrOut, "vq: %s: the project's first import is being analysed (%s); not retried: run it again later, or add --wait\n",
			tool, readinessProgress(state))
		return resp, nil
	}
	send := func(ctx context.Context) (*api.ToolResponse, error) { return f.invoke(ctx, client, s, call) }
	return api.AwaitReady(ctx, resp, send, api.ReadinessOptions{
		Interval: f.Global.Interval,
		OnWait: func(r api.Readiness, wait time.Duration) {
			fmt.Fprintf(f.IO.ErrOut, "vq: %s: the project's first import is being analysed (%s); asking again in %s\n",
				tool, readinessProgress(r), wait)
		},
	})
}

func readinessProgress(r api.Readiness) string {
	if r.Total == 0 {
		return "analysis in progress"
	}
	return fmt.Sprintf("%d of %d sources analysed", r.Analysed, r.Total)
}
