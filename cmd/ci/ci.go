// Package ci holds vq ci and its subcommands: runs of the CI endpoint
// started, followed to their verdict, and that verdict as the exit code.
//
// It may import cmd/cmdutil, cmd/iostreams, api, format, ui and the
// internal leaves; never cmd nor another command group.
package ci

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
)

// CIOptions are the inputs of the vq ci commands.
type CIOptions struct {
	Tool string
	Args map[string]any
	Raw  bool // vq ci call: the CI answer itself, never waiting
	// A start's Idempotency-Key (--idempotency-key), else one of the
	// start and Job, the CI job's identifiers (api.StartKey).
	IdempotencyKey string
	Job            []string
	Pipeline       *cmdutil.Pipeline
}

const ciJSONHelp = `CI tools answer plain JSON, not ToolResponses. vq wraps each answer in a
ToolResponse (ok, tool, summary, data = the CI answer, error), so --json
prints one ToolResponse document like every other command, also for HTTP
failures, and --jq filters it: --jq .data.runId. Whatever the verdict, a
run's document has one shape: tool get_run_status, and .data with runId,
status, url, failed and total; a failed run also nests its failing checks
in .data.failures (--jq '.data.failures[].scenarioLabel'). A verdict that
is not a pass is ok:false, its .error.code the code of its exit
(run_failed, run_error, run_cancelled, no_verdict).`

const ciExitHelp = `Exit codes (vq exit-codes): 0 when the run passed (or was just started,
without --wait); 8 (pending) when vq ci status finds it still queued or
running without --wait; 54 (no_verdict) when an answer has no runId or
status, a status outside queued, running, passed, failed, error and
cancelled (named), or its status twice; 55 (maybe_applied) when a start
got no answer vq can read (it is not started again); 3 (run_failed) when
it finished with visual changes, after showing the failed checks as vq
failures RUN_ID does (so --format junit, github or markdown report them), or
0 with --exit-zero-on-changes, the one exception to "no failure exits 0"; 6
when it ended in error; 7 when it was
cancelled; 5 (timeout) when --wait ran past --wait-timeout, the run may still
finish (--json prints the timeout as its one document); 130 on Ctrl-C. Both of those print the command that resumes the wait:
vq ci status RUN_ID --wait. HTTP failures exit as elsewhere (unauthorized,
http_error, not_found). A wait that stops before the verdict (a timeout,
Ctrl-C, a failure) keeps the run in its document's .data (runId, url,
status as last seen) and prints the command that resumes.`

const ciReportsHelp = `In a pipeline: --junit PATH writes the run's JUnit report (one case per
check) to PATH beside whatever stdout shows. Under GitHub Actions
(GITHUB_ACTIONS=true) the default format is github (annotations, and the
report in the step summary), and with GITHUB_OUTPUT set the step outputs
run-id, url, status, failed, total and exit-code are appended to it
whatever the format; an outputs file vq cannot write is a warning, never
another exit code. --save-dir DIR saves the diff images of the failed checks
as NN-scenario-viewport.png (from the server's origin only, at most
--save-max-images 50 and --save-max-mb 50): the JUnit report attaches each,
the step summary links them. The action visualq/vq@v1 and GitLab and
Jenkins recipes: docs/ci in the repository.`

// NewCmdCI groups the CI endpoint's commands; runF is for flag-parsing tests.
func NewCmdCI(f *cmdutil.Factory, runF func(context.Context, *CIOptions) error) *cobra.Command {
	c := &cobra.Command{
		Use:   "ci",
		Short: "Start CI runs and wait for their verdict (/api/ci)",
		Long: `Start a visual (run-vrt) or performance (run-perf) run from a pipeline,
follow it (status), or call any tool of the CI endpoint (call), with the same
credentials, flags and retries as the rest of vq.

--wait polls get_run_status until the run has its verdict: progress bars on
a terminal, one line per change on stderr otherwise. Polling starts at 1s and
slows to 10s while nothing changes (--interval fixes it); failed polls are
retried, up to 10 in a row. --wait-timeout bounds the whole wait (30m by
default); --timeout bounds each request.

` + ciJSONHelp + `

` + ciReportsHelp + `

` + ciExitHelp,
	}
	c.AddCommand(
		newCmdCIRun(f, "run-vrt", "visual-regression", runF),
		newCmdCIRun(f, "run-perf", "performance", runF),
		newCmdCIStatus(f, runF),
		newCmdCICall(f, runF),
	)
	return c
}

// ciCmd builds a CI subcommand; one that waits takes the wait flags and
// the reports.
func ciCmd(f *cmdutil.Factory, c *cobra.Command, waits bool, build func(args []string) (*CIOptions, error), runF func(context.Context, *CIOptions) error) *cobra.Command {
	p := cmdutil.NewPipeline(f)
	cmdutil.AddOutputFlags(c, &p.Output)
	if waits {
		cmdutil.AddWaitFlags(c, &p.Wait, true)
		cmdutil.AddRunReports(c, f, p)
	}
	cmdutil.CallsCI(c, &f.Global)
	return cmdutil.Thin(c, func(args []string) (*CIOptions, error) {
		o, err := build(args)
		if o != nil {
			o.Pipeline = p
		}
		return o, err
	}, func(ctx context.Context, o *CIOptions) error {
		err := runCI(ctx, o)
		return p.Finish(ctx, err)
	}, runF)
}

func newCmdCIRun(f *cmdutil.Factory, name, kind string, runF func(context.Context, *CIOptions) error) *cobra.Command {
	row := cmdutil.TaskRow("ci " + name)
	tool := row.Tool
	c := row.Shape(f, &cobra.Command{
		Short: "Start a " + kind + " run (" + tool + "); --wait for its verdict",
		Long: `Start a ` + kind + ` run through the CI endpoint (` + tool + `) with the
arguments given (KEY=VALUE sends a string, KEY:=JSON a raw JSON value).
Without --wait vq prints the queued run and exits 0; follow it later with
vq ci status RUN_ID --wait.

The keys vq proposes (docs/contract.md), each optional:
` + argList(row.Spec().Args) + `Any other key is sent as given, with a warning: the server may know more.

Each start sends an Idempotency-Key header: the same for the same
arguments, project and environment in one CI job (GITHUB_RUN_ID,
GITHUB_RUN_ATTEMPT, GITHUB_JOB; CI_PIPELINE_ID, CI_JOB_ID), random
elsewhere. A server that honours it answers a start sent again with the
same run: when a start got no answer (exit 55), vq names the command that
sends it again with --idempotency-key.

` + ciJSONHelp + `

` + ciReportsHelp + `

` + ciExitHelp,
		Example: `  vq ci ` + name + ` branch=main --wait
  vq ci ` + name + ` branch="$CI_BRANCH" commit="$CI_SHA" url=https://preview.example.com baselineBranch=main --wait
  vq ci ` + name + ` branch="$CI_BRANCH" commit="$CI_SHA" --wait --format junit > vq.xml
  vq ci ` + name + ` branch="$CI_BRANCH" --wait --format github --junit vq-junit.xml
  vq ci ` + name + ` branch="$CI_BRANCH" --wait --exit-zero-on-changes --save-dir vq-diffs --junit vq-junit.xml
  vq ci ` + name + ` branch=main --json --jq .data.runId`,
	}, "[--wait]")
	var key string
	c = ciCmd(f, c, true, func(pairs []string) (*CIOptions, error) {
		args, err := row.Values(c, pairs)
		if c.Flags().Changed("idempotency-key") && (key == "" || len(key) > 255 || strings.ContainsFunc(key, func(r rune) bool { return r < ' ' || r > '~' })) {
			err = &exitcode.UsageError{Reason: "--idempotency-key takes 1 to 255 printable ASCII characters", Hint: "give the key vq named in its maybe_applied hint, or one of your own"}
		}
		return &CIOptions{Tool: tool, Args: args, IdempotencyKey: key, Job: ciJob(f.Getenv)}, err
	}, runF)
	c.Flags().StringVar(&key, "idempotency-key", "", "the start's Idempotency-Key: the one a maybe_applied hint names, to send that start again")
	return c
}

// argList lists a tool's arguments for a help text, a line each.
func argList(args []api.ToolArg) string {
	var b strings.Builder
	for _, a := range args {
		fmt.Fprintf(&b, "  %-16s %s\n", a.Name, a.Description)
	}
	return b.String()
}

// warnUndocumented says, in a line, which keys of a start vq does not
// know: they are sent, for the server may know more.
func warnUndocumented(p *cmdutil.Pipeline, tool string, args map[string]any) {
	known := api.MustTool(tool).InputArgs()
	var unknown []string
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if !slices.ContainsFunc(known, func(a api.ToolArg) bool { return a.Name == name }) {
			unknown = append(unknown, textsafe.SanitizeLine(name))
		}
	}
	if len(unknown) > 0 {
		p.Terminal().Print.Warning(fmt.Sprintf("vq does not know %s's %s (vq ci %s --help lists the keys it knows); sent as given: the server may know more",
			tool, strings.Join(unknown, ", "), strings.ReplaceAll(tool, "_", "-")))
	}
}

// ciJob are the identifiers of the CI job vq runs in (GitHub Actions'
// run, attempt and job; GitLab's pipeline and job), nil outside CI.
func ciJob(getenv func(string) string) []string {
	var job []string
	for _, name := range []string{"GITHUB_RUN_ID", "GITHUB_RUN_ATTEMPT", "GITHUB_JOB", "CI_PIPELINE_ID", "CI_JOB_ID"} {
		if v := getenv(name); v != "" {
			job = append(job, name+"="+v)
		}
	}
	return job
}

func newCmdCIStatus(f *cmdutil.Factory, runF func(context.Context, *CIOptions) error) *cobra.Command {
	return ciCmd(f, cmdutil.TaskRow("ci status").Shape(f, &cobra.Command{
		Short: "Show a CI run's status (get_run_status); --wait for its verdict",
		Long: `Show how a CI run is doing (get_run_status). A run that has its verdict
is reported as vq ci run-vrt --wait would: a failed run shows its failed
checks and exits 3. --wait follows a queued or running run to its verdict;
it is also the command that resumes an interrupted wait.

` + ciJSONHelp + `

` + ciReportsHelp + `

` + ciExitHelp,
		Example: `  vq ci status run_123
  vq ci status run_123 --wait --wait-timeout 20m --junit vq-junit.xml`,
	}, "[--wait]"), true, func(args []string) (*CIOptions, error) {
		return &CIOptions{Tool: api.ToolRunStatus, Args: map[string]any{"runId": args[0]}}, nil
	}, runF)
}

func newCmdCICall(f *cmdutil.Factory, runF func(context.Context, *CIOptions) error) *cobra.Command {
	var argsJSON string
	c := ciCmd(f, &cobra.Command{
		Use:   "call TOOL [KEY=VALUE | KEY:=JSON]...",
		Short: "Call any tool of the CI endpoint and print its JSON answer",
		Long: `POST the arguments to {base}/api/ci/TOOL and print the answer: the JSON the
server sent (indented on a terminal, terminal controls escaped), or for a
failure the error on stderr. It never waits and knows no verdicts: its exit
code says only whether the call succeeded.

With --json or --jq the answer is wrapped in a ToolResponse like every other
command's, the CI answer under .data.`,
		Example: `  vq ci call get_run_status runId=run_123
  vq ci call run_vrt branch=main --args @ci-args.json`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &exitcode.UsageError{Reason: "vq ci call needs a TOOL", Hint: "usage: " + c.UseLine()}
			}
			return nil
		},
	}, false, func(args []string) (*CIOptions, error) {
		pairs, err := cmdutil.ParseArgs(args[1:], argsJSON, f.IOStreams.In)
		if err == nil {
			err = cmdutil.CheckKnownArgs(args[0], cmdutil.PairKeys(args[1:]))
		}
		return &CIOptions{Tool: args[0], Args: pairs, Raw: true}, err
	}, runF)
	c.Flags().StringVar(&argsJSON, "args", "", "tool arguments as a JSON object, @FILE or - for stdin")
	return c
}

// runCI calls the CI tool, then shows the answer, with --wait followed to
// the run's verdict.
func runCI(ctx context.Context, opts *CIOptions) error {
	p := opts.Pipeline
	call, key := cmdutil.CICall((*mcpclient.Client).CallCI), ""
	if !opts.Raw && !api.ReadOnlyTool(opts.Tool, false) {
		// A start carries its Idempotency-Key (docs/contract.md).
		warnUndocumented(p, opts.Tool, opts.Args)
		call = func(c *mcpclient.Client, ctx context.Context, tool string, args map[string]any) (*api.ToolResponse, error) {
			key = cmp.Or(opts.IdempotencyKey, c.StartKey(tool, args, opts.Job))
			return c.CallCI(api.WithIdempotencyKey(ctx, key), tool, args)
		}
	}
	resp, err := p.SendCI(ctx, call, opts.Tool, opts.Args)
	if err != nil {
		return err
	}
	if resp.ErrorCode() == api.CodeMaybeApplied && key != "" {
		defer p.Terminal().Print.Hint("to send it again as the same start (a server that honours Idempotency-Key answers the same run): " + resendLine(opts, key))
	}
	if opts.Raw {
		return showCIAnswer(ctx, p, resp)
	}
	resp = api.RunVerdict(resp)
	run, isRun := api.ParseCIRun(resp)
	if !isRun || run.Verdict() != exitcode.Pending {
		return showVerdict(ctx, p, resp)
	}
	if p.Wait.Wait {
		return waitRun(ctx, p, resp)
	}
	err = p.Show(ctx, resp)
	p.Terminal().Print.Hint("wait for its verdict with: " + resumeRunWait(run.RunID))
	if err == nil && opts.Tool == api.ToolRunStatus {
		// Asked how a run is doing, "still going" is no verdict: a script
		// must not read it as passed. A run just started is what was asked.
		err = &exitcode.Error{Code: run.Verdict()}
	}
	return err
}

// resendLine is the command that sends a start again with its key.
func resendLine(opts *CIOptions, key string) string {
	flag := "--idempotency-key " + textsafe.ShellQuote(key)
	line, ok := cmdutil.FrontingLine(api.NextAction{Tool: opts.Tool, Args: opts.Args})
	if !ok {
		return "the same command with " + flag
	}
	if opts.Pipeline.Wait.Wait {
		line += " --wait"
	}
	return line + " " + flag
}

func resumeRunWait(runID string) string {
	return "vq ci status " + textsafe.ShellQuote(runID) + " --wait"
}

// waitRun polls the run to its verdict. A wait that stops short keeps the
// run's handle in its answer and prints the command that resumes; neither
// a timeout nor Ctrl-C ever reads as a failed run.
func waitRun(ctx context.Context, p *cmdutil.Pipeline, started *api.ToolResponse) error {
	run, _ := api.ParseCIRun(started)
	w := p.Watch()
	view, end := p.Terminal().Progress([]string{run.RunID})
	// Watch reads job statuses; it sees each answer translated, and the
	// verdict is shown from the CI answer itself. Watch polls from one
	// goroutine, so last and lastRun need no lock.
	last, lastRun := started, started
	poll := func(ctx context.Context) (*api.ToolResponse, error) {
		resp, err := p.SendCI(ctx, (*mcpclient.Client).CallCIOnce, api.ToolRunStatus, map[string]any{"runId": run.RunID})
		if err != nil {
			return nil, err
		}
		resp = api.RunVerdict(resp)
		last = resp
		if _, isRun := api.ParseCIRun(resp); isRun {
			lastRun = resp
		}
		return api.RunAsJob(resp), nil
	}
	_, err := api.Watch(ctx, run.RunID, poll, w.Options(view.Update))
	end()
	resume := "to resume: " + resumeRunWait(run.RunID)
	var timeout *api.WatchTimeoutError
	switch {
	case errors.As(err, &timeout):
		resp := api.RunTimeout(timeout).WithData(lastRun.Data)
		shown := showStopped(ctx, p, resp)
		if !p.Output.Structured() {
			// No verdict: the wait's error, never a failed run's.
			p.Terminal().Print.Error(textsafe.SanitizeLine(resp.ErrorMessage()))
		}
		p.Terminal().Print.Hint(resume)
		return cmp.Or(shown, error(&exitcode.Error{Code: exitcode.Timeout}))
	case err != nil:
		showStopped(context.WithoutCancel(ctx), p, cmdutil.InterruptedAnswer(ctx, api.ToolRunStatus, "run "+run.RunID).WithData(lastRun.Data))
		p.Terminal().Print.Hint(resume)
		return err
	case last != lastRun:
		// The wait ended in a failure, not a verdict: shown with the run
		// as last seen, and how to ask again.
		err := showVerdict(ctx, p, last.WithData(lastRun.Data))
		p.Terminal().Print.Hint(resume)
		return err
	}
	return showVerdict(ctx, p, last)
}

// showStopped shows the answer of a wait stopped before the verdict to a
// script, which gets its one document; the reports are of it either way.
func showStopped(ctx context.Context, p *cmdutil.Pipeline, resp *api.ToolResponse) error {
	if p.Output.Structured() {
		return p.Show(ctx, resp)
	}
	p.Remember(resp)
	return nil
}

// showVerdict shows a CI answer and exits with the run's verdict. A failed
// run is shown as vq failures shows its checks, and exits run_failed even
// though that call succeeded.
func showVerdict(ctx context.Context, p *cmdutil.Pipeline, resp *api.ToolResponse) error {
	run, isRun := api.ParseCIRun(resp)
	if !isRun || run.Verdict() == exitcode.OK {
		return p.Show(ctx, resp)
	}
	var call api.Call
	if run.Verdict() == exitcode.RunFailed {
		call = api.RunFailuresCall(run.RunID)
		failures, err := p.Send(ctx, call)
		if err != nil {
			return err
		}
		// Failures that could not be fetched leave the run's answer as it
		// is and say why; the run's verdict is still the exit code.
		if failures.OK {
			resp = resp.WithFailures(failures)
		} else {
			_ = format.WriteErrorLine(p.Terminal().Print.ErrOut, failures)
		}
	}
	if p.Output.Format == "json" || p.Output.JQ != "" {
		// Its error line on stderr says the verdict; --junit reports the
		// run's checks, as in every format.
		err := p.Show(ctx, api.RunFailure(resp, run))
		p.Remember(resp)
		return err
	}
	show := p.Show
	if call.Tool != "" {
		show = func(ctx context.Context, r *api.ToolResponse) error { return p.ShowCall(ctx, call, r) }
	}
	if err := show(ctx, resp); err != nil {
		return err
	}
	p.Terminal().Print.Verdict(run)
	return &exitcode.Error{Code: run.Verdict()}
}

// showCIAnswer prints the JSON the server sent, or the wrapping
// ToolResponse as the output flags ask.
func showCIAnswer(ctx context.Context, p *cmdutil.Pipeline, resp *api.ToolResponse) error {
	if p.Output.Structured() {
		return p.Show(ctx, resp)
	}
	p.Remember(resp)
	if err := p.Terminal().Print.CIAnswer(resp); err != nil || resp.OK {
		return err
	}
	return exitcode.Shown(resp)
}
