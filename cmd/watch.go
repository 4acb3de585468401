package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/colorprofile"
	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/ui"
	"golang.org/x/term"
)

// DefaultWatchTimeout bounds a watch when --timeout is not given: long
// enough for any proof, short enough that a forgotten CI step ends.
const DefaultWatchTimeout = 30 * time.Minute

// WatchOptions are the inputs of vq watch.
type WatchOptions struct {
	JobIDs []string
}

// NewCmdWatch polls async jobs until they end. runF replaces the behaviour
// in tests of flag parsing.
func NewCmdWatch(f *Factory, runF func(context.Context, *WatchOptions) error) *cobra.Command {
	opts := &WatchOptions{}
	return &cobra.Command{
		Use:   "watch JOB_ID...",
		Short: "Watch async jobs until they end (get_job_status)",
		Long: `Poll get_job_status for each job, concurrently, until it is completed,
failed or cancelled, then print each job's final answer on stdout in the order
given (with --json, one JSON document per job, each on its own line when
stdout is not a terminal).

Progress goes to stderr: a live view on a terminal, else one line per change
of status or progress. Polling starts at 1s and slows down to 10s while
nothing changes; once a job has shown its pace, vq waits most of one step
before asking again (--interval fixes the interval instead). Failed polls
are retried, up to 10 in a row. The whole watch is bounded by --timeout when given (30m otherwise).

Exit code: with several jobs, the largest of their exit codes, so any failure
makes it non-zero; 5 (timeout) when a job is still running at the deadline,
130 on Ctrl-C. Both print the vq watch command that resumes.`,
		Example: `  vq watch job_123
  vq watch job_123 job_456 --timeout 10m --json`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &format.UsageError{Reason: "vq watch needs at least one JOB_ID", Hint: "usage: " + c.UseLine()}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.JobIDs = args
			if runF != nil {
				return runF(c.Context(), opts)
			}
			client, s, err := f.Client()
			if err != nil {
				return err
			}
			jobs := make([]watched, len(opts.JobIDs))
			for i, id := range opts.JobIDs {
				jobs[i] = watched{id: id, poll: client.JobStatusPoll(id)}
				if !s.hasCredential() {
					jobs[i].poll = func(context.Context) (*api.ToolResponse, error) { return api.MissingCredential(api.ToolJobStatus), nil }
				}
			}
			return f.watchAndShow(c.Context(), jobs)
		},
	}
}

// watchAndShow watches jobs and shows each final answer; the error carries
// the worst exit code of them.
func (f *Factory) watchAndShow(ctx context.Context, jobs []watched) error {
	outcomes, err := f.watchJobs(ctx, jobs)
	if err != nil {
		return err
	}
	var errs []error
	for _, o := range outcomes {
		if len(outcomes) > 1 && !f.structuredOutput() {
			fmt.Fprintf(f.IO.Out, "== job %s ==\n", format.SanitizeLine(o.id))
		}
		errs = append(errs, f.show(ctx, o.resp))
	}
	return worst(errs)
}

// worst is the error with the largest exit code: any failure beats success,
// and among failures the highest number wins (documented in vq watch).
func worst(errs []error) error {
	var w error
	for _, err := range errs {
		if format.Exit(err) > format.Exit(w) {
			w = err
		}
	}
	return w
}

// jobOutcome is how the watch of one job ended: its final answer (a
// client-made timeout answer past the deadline). err is Watch's own error,
// read only while the outcomes are collected.
type jobOutcome struct {
	id   string
	resp *api.ToolResponse
	err  error
}

// watched is one job to watch: its id and how to ask after it (a
// get_job_status poll, or the call that follows MCP token work).
type watched struct {
	id   string
	poll api.PollFunc
}

// watchJobs watches every job at once with the progress display on stderr.
// A job still running at the deadline gets a timeout outcome (exit code
// format.ExitTimeout); Ctrl-C ends the whole watch with ctx's error. Both
// print the command that resumes the watch.
func (f *Factory) watchJobs(ctx context.Context, jobs []watched) ([]jobOutcome, error) {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.id
	}
	display, opts := f.watchSetup(ids)
	outcomes := make([]jobOutcome, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() {
			resp, err := api.Watch(ctx, j.id, hinted(j.poll), opts)
			outcomes[i] = jobOutcome{id: j.id, resp: resp, err: err}
		})
	}
	wg.Wait()
	display.Close()

	var unfinished []string
	for i, o := range outcomes {
		var timeout *api.WatchTimeoutError
		if errors.As(o.err, &timeout) {
			// Shown like any answer (the timeout code, exit 5), so --json
			// still prints a document for the job.
			outcomes[i] = jobOutcome{id: o.id, resp: timeout.Response()}
		}
		if o.err != nil {
			unfinished = append(unfinished, format.ShellQuote(o.id))
		}
	}
	if len(unfinished) > 0 {
		fmt.Fprintf(f.IO.ErrOut, "vq: to resume: vq watch %s\n", strings.Join(unfinished, " "))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return outcomes, nil
}

// watchSetup starts the progress display for the watched IDs and gives
// the options every watch shares: --interval, and --timeout for the whole
// watch when it was given (DefaultWatchTimeout otherwise).
func (f *Factory) watchSetup(ids []string) (*ui.JobProgress, api.WatchOptions) {
	display := ui.NewJobProgress(f.IO.ErrOut, ids, f.progressOptions())
	opts := api.WatchOptions{Interval: f.Global.Interval, Timeout: DefaultWatchTimeout, OnUpdate: display.Update}
	if f.Global.TimeoutGiven {
		opts.Timeout = f.Global.Timeout
	}
	return display, opts
}

// progressOptions picks the live view for a terminal on stderr (unless
// --no-tui or TERM=dumb) and the colour profile from the environment.
func (f *Factory) progressOptions() ui.ProgressOptions {
	profile := colorprofile.Env(ui.Environ(f.Getenv))
	if f.Global.NoColor {
		profile = min(profile, colorprofile.ASCII)
	}
	o := ui.ProgressOptions{
		Live:    f.IO.ErrTTY && !f.Global.NoTUI && profile > colorprofile.NoTTY,
		Profile: profile,
	}
	if file, ok := f.IO.ErrOut.(*os.File); ok {
		if w, _, err := term.GetSize(int(file.Fd())); err == nil {
			o.Width = w
		}
	}
	return o
}
