package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
)

// followUp is the id --wait watches for an answer that started work: an
// async tool's job id, or the token of long-running MCP work, whose poll
// (the same call plus the token) it registers for jobPoll.
func (f *Factory) followUp(client *api.Client, call api.Call, resp *api.ToolResponse) (string, bool) {
	id, poll, ok := client.FollowUp(call, resp)
	if !ok {
		return "", false
	}
	if _, isToken := api.ParseLongRunning(resp); isToken {
		if f.tokenPolls == nil {
			f.tokenPolls = map[string]api.PollFunc{}
		}
		f.tokenPolls[id] = poll
	}
	return id, true
}

// jobPoll asks once after a watched job: the registered token call, whose
// progress notifications feed onUpdate like the polls' own progress, or
// get_job_status through f.invoke.
func (f *Factory) jobPoll(client *api.Client, s Settings, id string, onUpdate func(api.JobUpdate)) api.PollFunc {
	if poll, ok := f.tokenPolls[id]; ok {
		return func(ctx context.Context) (*api.ToolResponse, error) {
			return poll(api.WithProgress(ctx, onUpdate))
		}
	}
	if !s.hasCredential() {
		return func(context.Context) (*api.ToolResponse, error) { return api.MissingCredential(api.ToolJobStatus), nil }
	}
	return client.JobStatusPoll(id)
}

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
