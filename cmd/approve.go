package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui"
)

// ApproveOptions are the inputs of vq approve.
type ApproveOptions struct {
	RunID  string
	Checks []check
	// Calls are the approve_vrt_results calls, one per check, without
	// consent: it is given once for all of them.
	Calls    []api.Call
	DryRun   bool
	Pipeline *Pipeline
}

// NewCmdApprove accepts a run's changes as the new baseline: all of them,
// or the checks named by --scenario/--viewport pairs, asked for once.
// runF replaces the behaviour in tests of flag parsing.
func NewCmdApprove(f *Factory, runF func(context.Context, *ApproveOptions) error) *cobra.Command {
	opts := &ApproveOptions{Pipeline: newPipeline(f)}
	c := &cobra.Command{
		Short: "Approve a run's visual changes as the new baseline (write)",
		Long: `Approve a run's visual changes (approve_vrt_results): all of them, or the
checks named by --scenario and --viewport. Repeat them to approve several checks
at once: the n-th --scenario pairs with the n-th --viewport, and a single one of
either applies to every one of the other. Several checks are sent as a batch (a
few calls at a time, rate limits waited out, none sent twice); Ctrl-C stops it and
says what was not sent.

This writes: the server requires consent, given with --yes or, on a terminal, at
a prompt that says how many checks it approves. --dry-run shows the calls and
sends nothing.`,
		Example: "  vq approve run_abc --scenario Homepage --viewport desktop --yes\n" +
			"  vq approve run_abc --scenario Homepage --viewport desktop --scenario Checkout --viewport mobile --dry-run",
	}
	callsTools(taskRow("approve").shape(f, c, "[--dry-run]"), &f.Global)
	thin(c, func(args []string) (*ApproveOptions, error) {
		scenarios, _ := c.Flags().GetStringArray("scenario")
		viewports, _ := c.Flags().GetStringArray("viewport")
		checks, err := pairChecks(scenarios, viewports)
		if err != nil {
			return nil, err
		}
		opts.RunID, opts.Checks, opts.Calls = args[0], checks, make([]api.Call, len(checks))
		spec := api.MustTool(api.ToolApprove)
		for i, ch := range checks {
			if opts.Calls[i], err = spec.Call(approveArgs(opts.RunID, ch)); err != nil {
				return nil, &exitcode.UsageError{Reason: err.Error(), Hint: "usage: " + c.UseLine()}
			}
		}
		return opts, nil
	}, runApprove, runF)
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "show the calls that would be sent, send nothing")
	addOutputFlags(c, &opts.Pipeline.Output)
	addWaitFlags(c, &opts.Pipeline.Wait, true)
	completeCheckFlags(f, c)
	return c
}

// runApprove runs vq approve: one call per check, consent asked for once
// on a terminal in words that say how many checks it approves, several
// sent as a batch. With --dry-run the calls are shown and nothing is sent.
func runApprove(ctx context.Context, o *ApproveOptions) error {
	p := o.Pipeline
	if o.DryRun {
		return p.Show(ctx, dryRunAnswer(o))
	}
	a := approval{runID: o.RunID, checks: o.Checks, pipeline: p}
	_, policy := p.policies()
	calls, answer, err := consent(ctx, policy, p.f.Terminal().prompter(&p.Output), WriteIntent{Calls: o.Calls, Question: a.question})
	switch {
	case err != nil:
		return err
	case answer == declined:
		return p.Show(ctx, declinedAnswer(api.ToolApprove))
	case len(calls) == 1:
		// Not asked, it goes as it is: the server's confirm gate answers
		// (and in the TUI, its dialog asks).
		return p.Run(ctx, calls[0])
	case answer != consented:
		// A script is never asked: nothing is sent without --yes.
		return p.Show(ctx, declinedAnswer(api.ToolApprove))
	}
	return a.sendBatch(ctx, calls)
}

// check is one scenario/viewport filter of vq approve; an empty member
// matches every check.
type check struct{ scenario, viewport string }

func (c check) String() string {
	switch {
	case c.scenario != "" && c.viewport != "":
		return c.scenario + "/" + c.viewport
	case c.scenario != "":
		return "scenario " + c.scenario
	case c.viewport != "":
		return "viewport " + c.viewport
	}
	return "every failing check"
}

// pinned reports a filter that names exactly one check.
func (c check) pinned() bool { return c.scenario != "" && c.viewport != "" }

// pairChecks pairs the repeated --scenario and --viewport flags by
// position; a single one of either applies to every one of the other.
func pairChecks(scenarios, viewports []string) ([]check, error) {
	n := max(len(scenarios), len(viewports))
	if len(scenarios) > 1 && len(viewports) > 1 && len(scenarios) != len(viewports) {
		return nil, &exitcode.UsageError{
			Reason: fmt.Sprintf("%d --scenario and %d --viewport flags do not pair up", len(scenarios), len(viewports)),
			Hint:   "give one --viewport per --scenario, or a single one of either for all",
		}
	}
	at := func(list []string, i int) string {
		switch len(list) {
		case 0:
			return ""
		case 1:
			return list[0]
		}
		return list[i]
	}
	checks := make([]check, max(n, 1))
	for i := range checks {
		checks[i] = check{scenario: at(scenarios, i), viewport: at(viewports, i)}
	}
	return checks, nil
}

// approveArgs is the approve_vrt_results arguments for one filter.
func approveArgs(runID string, c check) map[string]any {
	return map[string]any{"runId": runID, "scenarioLabel": c.scenario, "viewport": c.viewport}
}

// checkOf is the filter an approve_vrt_results call approves.
func checkOf(c api.Call) check {
	return check{scenario: fmt.Sprint(c.Args["scenarioLabel"]), viewport: fmt.Sprint(c.Args["viewport"])}
}

// approval is one vq approve of several checks of a run: the question
// that asks for it, and its batch.
type approval struct {
	runID    string
	checks   []check
	pipeline *Pipeline
}

// question asks once for the whole approval, saying how many checks it
// approves: the filters that name one check each count themselves, others
// are counted on the run's failures (a read) when the server answers.
func (a approval) question(ctx context.Context) string {
	count := ""
	if all := len(a.checks); a.checks[0].pinned() {
		count = fmt.Sprintf("%d %s", all, plural(all, "check", "checks"))
	} else if n, ok := a.countFailing(ctx); ok {
		count = fmt.Sprintf("%d failing %s", n, plural(n, "check", "checks"))
	} else {
		count = "the failing checks"
	}
	names := make([]string, 0, 3)
	for _, c := range a.checks[:min(3, len(a.checks))] {
		names = append(names, c.String())
	}
	if len(a.checks) > 3 {
		names = append(names, fmt.Sprintf("and %d more", len(a.checks)-3))
	}
	return fmt.Sprintf("approve_vrt_results approves %s of %s as the new baseline (%s).\nApprove %s?",
		count, textsafe.SanitizeLine(a.runID), textsafe.SanitizeLine(strings.Join(names, ", ")), count)
}

// countFailing counts the run's failing checks that the filters match.
func (a approval) countFailing(ctx context.Context) (int, bool) {
	resp, err := a.pipeline.Send(ctx, api.RunFailuresCall(a.runID))
	if err != nil || !resp.OK {
		return 0, false
	}
	listed, ok := layout.ChecksOf(resp.Data)
	if !ok {
		return 0, false
	}
	n := 0
	for _, ch := range listed.Listed {
		for _, c := range a.checks {
			if (c.scenario == "" || c.scenario == ch.Scenario) && (c.viewport == "" || c.viewport == ch.Viewport) {
				n++
				break
			}
		}
	}
	return n, true
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sendBatch sends the consented approvals as a batch through the sender
// of a single call, and shows one answer for them all. Ctrl-C stops it:
// the summary on stderr says what was not sent, and vq exits as
// interrupted.
func (a approval) sendBatch(ctx context.Context, calls []api.Call) error {
	p := a.pipeline
	_, s, err := p.connect(ctx)
	if err != nil {
		return err
	}
	if !s.hasCredential() {
		return p.Show(ctx, withHint(api.MissingCredential(api.ToolApprove), s))
	}
	describe := func(c api.Call) string { return checkOf(c).String() }
	b := batch{send: p.send, print: p.f.Terminal().Print, tool: api.ToolApprove, done: "approved", describe: describe}
	outcomes, err := b.run(ctx, calls)
	if err != nil {
		return err
	}
	return p.Show(ctx, a.answer(outcomes, describe))
}

// answer is the one answer vq shows for a batch of approvals: ok when
// every call was, else the first refusal's error, and each call's outcome
// in data.results.
func (a approval) answer(outcomes []ui.BatchOutcome, describe func(api.Call) string) *api.ToolResponse {
	type result struct {
		ScenarioLabel string `json:"scenarioLabel"`
		Viewport      string `json:"viewport"`
		OK            bool   `json:"ok"`
		Summary       string `json:"summary,omitempty"`
		Error         string `json:"error,omitempty"`
	}
	results := make([]result, len(outcomes))
	var first *api.ToolResponse
	var firstErr error
	for i, o := range outcomes {
		ch := checkOf(o.Call)
		r := result{ScenarioLabel: ch.scenario, Viewport: ch.viewport, OK: o.State == ui.BatchDone}
		switch {
		case o.Resp != nil && o.Resp.OK:
			r.Summary = o.Resp.Summary
		case o.Resp != nil:
			r.Error = o.Resp.ErrorCode() + ": " + o.Resp.ErrorMessage()
			if first == nil {
				first = o.Resp
			}
		case o.Err != nil:
			r.Error = o.Err.Error()
			if firstErr == nil {
				firstErr = o.Err
			}
		}
		results[i] = r
	}
	counts := ui.CountBatch(outcomes)
	data, _ := json.Marshal(map[string]any{"runId": a.runID, "approved": counts.Done, "refused": counts.Refused, "results": results})
	lines := ui.BatchSummary(api.ToolApprove, outcomes, describe, 5)
	resp := &api.ToolResponse{OK: counts.Refused == 0, Tool: api.ToolApprove, Summary: strings.Join(lines, "\n"),
		Data: data, Warnings: []string{}, NextActions: []api.NextAction{
			{Label: "Re-check the failures of " + a.runID, Tool: api.ToolRunFailures, Args: map[string]any{"runId": a.runID}}}}
	switch {
	case first != nil:
		resp.Error, resp.Recoverable = first.Error, first.Recoverable
		if resp.Error == nil {
			resp.Error = &api.ToolError{Code: first.ErrorCode(), Message: first.ErrorMessage()}
		}
	case firstErr != nil:
		resp.Error = &api.ToolError{Code: api.CodeHTTPError, Message: firstErr.Error()}
		resp.Recoverable = new(true)
	}
	return resp
}

// dryRunAnswer lists the calls vq approve would send.
func dryRunAnswer(o *ApproveOptions) *api.ToolResponse {
	data, _ := json.Marshal(map[string]any{"dryRun": true, "calls": o.Calls})
	names := make([]string, len(o.Checks))
	for i, c := range o.Checks {
		names[i] = c.String()
	}
	return &api.ToolResponse{OK: true, Tool: api.ToolApprove,
		Summary: fmt.Sprintf("Dry run: would send %d %s to approve %s of %s; nothing was sent.",
			len(o.Calls), plural(len(o.Calls), "call", "calls"), strings.Join(names, ", "), o.RunID),
		Data: data, Warnings: []string{}, NextActions: []api.NextAction{}}
}

// declinedAnswer is the answer when consent was not given: nothing was
// sent.
func declinedAnswer(tool string) *api.ToolResponse {
	return &api.ToolResponse{OK: false, Tool: tool, Summary: "Not sent: consent was not given.",
		Data: json.RawMessage("null"), Warnings: []string{}, NextActions: []api.NextAction{},
		Error:       &api.ToolError{Code: api.CodeConfirmRequired, Message: tool + " changes your project: confirm at the prompt, or pass --yes"},
		Recoverable: new(true)}
}
