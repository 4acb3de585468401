package cmdutil

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/textsafe"
)

// JobWatch follows a command's jobs to their end with progress and a resume line.
type JobWatch struct {
	term   *iostreams.Terminal
	wait   WaitOptions
	resume func(ids []string) string // nil is vq watch IDS
	// structured: one document per job for a script, even for a watch stopped short.
	structured bool
	show       func(context.Context, *api.ToolResponse) error
	settings   Settings // for the refusals' words
}

// watched is one job: a get_job_status poll, or the call following MCP token work.
type watched struct {
	id   string
	poll api.PollFunc
}

// JobOutcome is the final answer of one job (a client-made timeout past
// the deadline). err is read only while the outcomes are collected.
type JobOutcome struct {
	ID   string
	Resp *api.ToolResponse
	err  error
}

// Bound is the bound of the whole wait (--wait-timeout).
func (w JobWatch) Bound() time.Duration { return w.wait.bound(w.term.Print.Warning) }

// Options are the options every watch shares.
func (w JobWatch) Options(onUpdate func(api.JobUpdate)) api.WatchOptions {
	return api.WatchOptions{Interval: w.wait.Interval, Timeout: w.Bound(), OnUpdate: onUpdate}
}

// jobs watches every job at once: a deadline gives a timeout outcome, Ctrl-C ends all
// with ctx's error; those and refusals keep the job handle and print the resume line.
func (w JobWatch) jobs(ctx context.Context, jobs []watched) ([]JobOutcome, error) {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.id
	}
	view, end := w.term.Progress(ids)
	opts := w.Options(view.Update)
	outcomes := make([]JobOutcome, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() {
			hinted := func(ctx context.Context) (*api.ToolResponse, error) { return w.settings.hinted(j.poll(ctx)) }
			resp, err := api.Watch(ctx, j.id, hinted, opts)
			outcomes[i] = JobOutcome{ID: j.id, Resp: resp, err: err}
		})
	}
	wg.Wait()
	end()

	var unfinished, interrupted []string
	for i, o := range outcomes {
		var timeout *api.WatchTimeoutError
		switch {
		case errors.As(o.err, &timeout):
			// Shown like any answer (the timeout code, exit 5), so --json
			// still prints a document for the job, which keeps its ID.
			outcomes[i] = JobOutcome{ID: o.ID, Resp: withJobHandle(w.structured, timeout.Response(), o.ID, timeout.Last.Status)}
		case o.err != nil:
			interrupted = append(interrupted, o.ID)
		case endedShort(o.Resp):
			outcomes[i].Resp = withJobHandle(w.structured, o.Resp, o.ID, "")
		}
		if o.err != nil || endedShort(o.Resp) {
			unfinished = append(unfinished, o.ID)
		}
	}
	if err := ctx.Err(); err != nil && w.structured {
		// A script gets a document per job Ctrl-C stopped: the
		// interrupted error with the job's handle.
		for _, id := range interrupted {
			_ = w.show(context.WithoutCancel(ctx), withJobHandle(true, InterruptedAnswer(ctx, api.ToolJobStatus, "job "+id), id, ""))
		}
	}
	if len(unfinished) > 0 {
		resume := w.resume
		if resume == nil {
			resume = watchCommand
		}
		w.term.Print.Hint("to resume: " + resume(unfinished))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return outcomes, nil
}

func watchCommand(ids []string) string {
	words := []string{"vq", "watch"}
	for _, id := range ids {
		words = append(words, textsafe.ShellQuote(id))
	}
	return strings.Join(words, " ")
}
