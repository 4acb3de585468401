package prove

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
)

// WatchOptions are the inputs of vq watch.
type WatchOptions struct {
	JobIDs   []string
	Pipeline *cmdutil.Pipeline
}

// NewCmdWatch is vq watch; runF is for flag-parsing tests.
func NewCmdWatch(f *cmdutil.Factory, runF func(context.Context, *WatchOptions) error) *cobra.Command {
	opts := &WatchOptions{Pipeline: cmdutil.NewPipeline(f)}
	c := cmdutil.TaskRow("watch").Shape(f, &cobra.Command{
		Short: "Watch async jobs until they end (get_job_status)",
		Long: `Poll get_job_status for each job, concurrently, until it is completed,
failed or cancelled, then print each job's final answer on stdout in the order
given (with --json, one JSON document per job, each on its own line when
stdout is not a terminal). A proof job's answer is shown as vq prove shows
it: the OUI/NON headline first, the verdict, reasons, warnings, the JIRA
comment as a block and the next steps.

Progress goes to stderr: a live view on a terminal, else one line per change
of status or progress. Polling starts at 1s and slows down to 10s while
nothing changes; once a job has shown its pace, vq waits most of one step
before asking again (--interval fixes the interval instead). Failed polls
are retried, up to 10 in a row. --wait-timeout bounds the whole watch (30m
by default); --timeout bounds each request.

Exit code: with several jobs, the largest of their exit codes, so any failure
makes it non-zero; 0 only for a job completed with an ok answer; 52
(job_failed) or 53 (job_cancelled) for a job that ended so while its answer
said ok; 54 (no_verdict) for a status outside queued, running, completed,
failed and cancelled (named); 5 (timeout) when a job is still running at
the deadline, 130 on Ctrl-C. Both print the vq watch command that resumes.`,
		Example: `  vq watch job_123
  vq watch job_123 job_456 --wait-timeout 10m --json`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.JobIDs = args
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runWatch(c.Context(), opts)
		},
	}, "")
	cmdutil.AddOutputFlags(c, &opts.Pipeline.Output)
	cmdutil.AddWaitFlags(c, &opts.Pipeline.Wait, false)
	return cmdutil.CallsServer(c, &f.Global)
}

// runWatch shows each job's final answer; the error is the one with the
// largest exit code (documented in vq watch).
func runWatch(ctx context.Context, opts *WatchOptions) error {
	p := opts.Pipeline
	outcomes, err := p.WatchJobs(ctx, opts.JobIDs)
	if err != nil {
		return err
	}
	var worst error
	for _, o := range outcomes {
		if len(outcomes) > 1 && !p.Output.Structured() {
			// A reader that left early still gets the answers' exit code.
			_ = p.Terminal().Print.Heading("job " + o.ID)
		}
		proof, isProof := format.ProofAnswer(o.Resp, false)
		if err := showProofAnswer(ctx, p, o.Resp, proof, isProof); exitcode.Of(err) > exitcode.Of(worst) {
			worst = err
		}
	}
	return worst
}
