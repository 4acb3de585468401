// Package approve holds vq approve: one approve_vrt_results call per
// check, sent as a batch.
package approve

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui"
)

// ApproveOptions are the inputs of vq approve.
type ApproveOptions struct {
	RunID  string
	Checks []check
	// Calls are one per check, without consent: it is given once for all.
	Calls    []api.Call
	DryRun   bool
	Pipeline *cmdutil.Pipeline
}

// NewCmdApprove is vq approve; runF is for flag-parsing tests.
func NewCmdApprove(f *cmdutil.Factory, runF func(context.Context, *ApproveOptions) error) *cobra.Command {
	opts := &ApproveOptions{Pipeline: cmdutil.NewPipeline(f)}
	c := &cobra.Command{
		Short: "Approve a run's visual changes as the new baseline (write)",
		Long: `Approve a run's visual changes (approve_vrt_results): all of them, or the
checks named by --scenario and --viewport. Repeat them to approve several checks
at once: the n-th --scenario pairs with the n-th --viewport, and a single one of
either applies to every one of the other; a check named twice is approved once.
Several checks are sent as a batch: a few calls at a time, each as a single
call is sent (its retries and --timeout), --wait-timeout bounding the whole
batch. An approval whose answer was lost is reported as may have been applied
(exit 55, maybe_applied), never sent again: check with vq failures RUN_ID.
Ctrl-C stops the batch and says what was not sent.

This writes: the server requires consent, given with --yes or, on a terminal, at
a prompt that says how many checks it approves. --dry-run shows the calls and
sends nothing. While the project's first import is analysed the server refuses
writes: --wait waits for it (asking again every --interval), then approves.`,
		Example: "  vq approve run_abc --scenario Homepage --viewport desktop --yes\n" +
			"  vq approve run_abc --scenario Homepage --viewport desktop --scenario Checkout --viewport mobile --dry-run",
	}
	cmdutil.CallsTools(cmdutil.TaskRow("approve").Shape(f, c, "[--dry-run]"), &f.Global)
	cmdutil.Thin(c, func(args []string) (*ApproveOptions, error) {
		scenarios, _ := c.Flags().GetStringArray("scenario")
		viewports, _ := c.Flags().GetStringArray("viewport")
		checks, err := pairChecks(scenarios, viewports)
		if err != nil {
			return nil, err
		}
		opts.RunID, opts.Checks, opts.Calls = args[0], checks, make([]api.Call, len(checks))
		spec := api.MustTool(api.ToolApprove)
		for i, ch := range checks {
			if opts.Calls[i], err = spec.Call(map[string]any{"runId": opts.RunID, "scenarioLabel": ch.scenario, "viewport": ch.viewport}); err != nil {
				return nil, &exitcode.UsageError{Reason: err.Error(), Hint: "usage: " + c.UseLine()}
			}
		}
		return opts, nil
	}, approveRun, runF)
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "show the calls that would be sent, send nothing")
	cmdutil.AddOutputFlags(c, &opts.Pipeline.Output)
	cmdutil.AddWaitFlags(c, &opts.Pipeline.Wait, true)
	cmdutil.WaitsOutReadiness(c)
	cmdutil.CompleteCheckFlags(f, c)
	return c
}

// approveRun asks consent once for every call, in words that say how many
// checks it approves.
func approveRun(ctx context.Context, o *ApproveOptions) error {
	p := o.Pipeline
	if o.DryRun {
		return p.Show(ctx, dryRunAnswer(o))
	}
	run, err := p.RunID(ctx, o.RunID)
	if err != nil {
		return err
	}
	a := approval{runID: run, checks: o.Checks, pipeline: p}
	_, policy := p.Policies()
	calls, answer, err := cmdutil.ObtainConsent(ctx, policy, p.Terminal().Prompter(p.Output.Structured()), ui.WriteIntent{Calls: o.Calls, Question: a.question})
	switch {
	case err != nil:
		return err
	case len(calls) == 1 && answer != cmdutil.Declined:
		// Not asked, it goes as it is: the server's confirm gate answers.
		return p.Run(ctx, calls[0])
	case answer == cmdutil.Declined:
		return p.Declined(api.ToolApprove, false)
	case answer != cmdutil.Consented:
		// A batch is never sent without consent.
		return p.Show(ctx, declinedAnswer())
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
	checks := make([]check, 0, max(n, 1))
	for i := range max(n, 1) {
		// A check named twice is approved once.
		if c := (check{scenario: at(scenarios, i), viewport: at(viewports, i)}); !slices.Contains(checks, c) {
			checks = append(checks, c)
		}
	}
	return checks, nil
}

// checkOf is the filter an approve_vrt_results call approves.
func checkOf(c api.Call) check {
	return check{scenario: fmt.Sprint(c.Args["scenarioLabel"]), viewport: fmt.Sprint(c.Args["viewport"])}
}

// approval is one vq approve of several checks of a run.
type approval struct {
	runID    string
	checks   []check
	pipeline *cmdutil.Pipeline
}

// question asks once for the whole approval, in words that say how many
// checks it approves ("Approve 1 check (Homepage, desktop) in run_abc?"):
// counted on the run's failures (a read) unless each filter names one.
func (a approval) question(ctx context.Context) string {
	count := ""
	if all, first := len(a.checks), a.checks[0]; first.scenario != "" && first.viewport != "" {
		count = fmt.Sprintf("%d %s", all, layout.Plural(all, "check", "checks"))
	} else if n, ok := a.countFailing(ctx); ok {
		count = fmt.Sprintf("%d failing %s", n, layout.Plural(n, "check", "checks"))
	} else {
		count = "the failing checks"
	}
	names := make([]string, 0, 3)
	for _, c := range a.checks[:min(3, len(a.checks))] {
		switch {
		case c.scenario != "" && c.viewport != "":
			names = append(names, c.scenario+", "+c.viewport)
		case c != check{}:
			names = append(names, c.String())
		}
	}
	if len(a.checks) > 3 {
		names = append(names, fmt.Sprintf("and %d more", len(a.checks)-3))
	}
	if len(names) > 0 {
		count += " (" + strings.Join(names, "; ") + ")"
	}
	return textsafe.SanitizeLine(fmt.Sprintf("Approve %s in %s?", count, a.runID))
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

// sendBatch sends the consented approvals as a batch, each as a single
// call is sent; --wait-timeout ends the whole batch. It shows one answer
// for them all; Ctrl-C stops it and says what was not sent.
func (a approval) sendBatch(ctx context.Context, calls []api.Call) error {
	p := a.pipeline
	_, s, err := p.Connect(ctx)
	if err != nil {
		return err
	}
	if !s.HasCredential() {
		return p.Show(ctx, cmdutil.WithHint(api.MissingCredential(api.ToolApprove), s))
	}
	print, bound := p.Terminal().Print, p.Watch().Bound()
	bctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	total, finished := len(api.UniqueCalls(calls)), 0
	outcomes := ui.RunBatch(bctx, calls, p.SendConsented, ui.BatchOptions{OnDone: func(_ int, o ui.BatchOutcome) {
		finished++
		if state, told := batchStates[o.State]; told {
			print.Note(fmt.Sprintf("[%d/%d] %s %s", finished, total, state, textsafe.SanitizeLine(describe(o.Call))))
		}
	}})
	if err := ctx.Err(); err != nil {
		for _, l := range ui.BatchSummary(api.ToolApprove, outcomes, describe, len(outcomes)) {
			print.Note(l)
		}
		return err
	}
	if bctx.Err() == nil {
		bound = 0
	}
	return p.Show(ctx, a.answer(outcomes, bound))
}

var batchStates = map[ui.BatchState]string{ui.BatchDone: "approved", ui.BatchRefused: "refused", ui.BatchMaybeApplied: "may have been applied:"}

func describe(c api.Call) string { return checkOf(c).String() }

// answer is the one answer of a batch: ok when every call was approved,
// else the failure that matters most, maybe-applied before the bound
// (zero when not reached) before a refusal.
func (a approval) answer(outcomes []ui.BatchOutcome, bound time.Duration) *api.ToolResponse {
	outcomes = appliedOrder(outcomes)
	type result struct {
		ScenarioLabel string `json:"scenarioLabel"`
		Viewport      string `json:"viewport"`
		OK            bool   `json:"ok"`
		Summary       string `json:"summary,omitempty"`
		Error         string `json:"error,omitempty"`
	}
	results := make([]result, len(outcomes))
	var maybe, refused *api.ToolResponse
	for i, o := range outcomes {
		ch := checkOf(o.Call)
		r := result{ScenarioLabel: ch.scenario, Viewport: ch.viewport, OK: o.State == ui.BatchDone}
		failed := batchFailure(o)
		switch {
		case o.State == ui.BatchDone:
			r.Summary = o.Resp.Summary
		case o.State == ui.BatchNotSent:
			r.Error = "not sent"
		case o.State == ui.BatchMaybeApplied && maybe == nil:
			maybe = failed
		case o.State == ui.BatchRefused && refused == nil:
			refused = failed
		}
		if failed != nil {
			r.Error = failed.ErrorCode() + ": " + failed.ErrorMessage()
		}
		results[i] = r
	}
	counts := ui.CountBatch(outcomes)
	data, _ := json.Marshal(map[string]any{"runId": a.runID, "approved": counts.Done, "refused": counts.Refused,
		"mayHaveBeenApplied": counts.MaybeApplied, "notSent": counts.NotSent, "results": results})
	lines := ui.BatchSummary(api.ToolApprove, outcomes, describe, 5)
	resp := &api.ToolResponse{OK: counts.Done == len(outcomes), Tool: api.ToolApprove, Summary: strings.Join(lines, "\n"),
		Data: data, Warnings: []string{}, NextActions: []api.NextAction{
			{Label: "Re-check the failures of " + a.runID, Tool: api.ToolRunFailures, Args: map[string]any{"runId": a.runID}}}}
	worst := maybe
	if worst == nil && bound > 0 && counts.NotSent > 0 {
		worst = api.ClientError(api.ToolApprove, api.CodeTimeout, fmt.Sprintf("the batch ran past --wait-timeout %s: %d %s not sent",
			bound, counts.NotSent, layout.Plural(counts.NotSent, "check was", "checks were")), true)
	}
	if worst = cmp.Or(worst, refused); worst != nil {
		resp.Error, resp.Recoverable = &api.ToolError{Code: worst.ErrorCode(), Message: worst.ErrorMessage()}, worst.Recoverable
	}
	return resp
}

// appliedOrder is the outcomes in the order the server applied them, by
// data.remaining (answers may come back in another order); the rest
// follow in the calls' order.
func appliedOrder(outcomes []ui.BatchOutcome) []ui.BatchOutcome {
	remaining := make([]int, len(outcomes))
	for i, o := range outcomes {
		remaining[i] = -1
		var data struct{ Remaining *int }
		if o.Resp != nil && o.Resp.OK && json.Unmarshal(o.Resp.Data, &data) == nil && data.Remaining != nil {
			remaining[i] = *data.Remaining
		}
	}
	order := make([]int, len(outcomes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(remaining[b], remaining[a]) })
	sorted := make([]ui.BatchOutcome, len(outcomes))
	for i, k := range order {
		sorted[i] = outcomes[k]
	}
	return sorted
}

func batchFailure(o ui.BatchOutcome) *api.ToolResponse {
	switch {
	case o.State == ui.BatchDone || o.State == ui.BatchNotSent:
		return nil
	case o.State == ui.BatchMaybeApplied && o.Resp.ErrorCode() != api.CodeMaybeApplied:
		return api.ClientError(o.Call.Tool, api.CodeMaybeApplied, o.Call.Tool+" may have been applied: it was in flight when the batch was stopped", false)
	case o.Resp != nil:
		return o.Resp
	}
	return api.ClientError(o.Call.Tool, api.CodeHTTPError, o.Err.Error(), true)
}

func dryRunAnswer(o *ApproveOptions) *api.ToolResponse {
	data, _ := json.Marshal(map[string]any{"dryRun": true, "calls": o.Calls})
	names := make([]string, len(o.Checks))
	for i, c := range o.Checks {
		names[i] = c.String()
	}
	return &api.ToolResponse{OK: true, Tool: api.ToolApprove,
		Summary: fmt.Sprintf("Dry run: would send %d %s to approve %s of %s; nothing was sent.",
			len(o.Calls), layout.Plural(len(o.Calls), "call", "calls"), strings.Join(names, ", "), o.RunID),
		Data: data, Warnings: []string{}, NextActions: []api.NextAction{}}
}

func declinedAnswer() *api.ToolResponse {
	const tool = api.ToolApprove
	return &api.ToolResponse{OK: false, Tool: tool, Summary: "Not sent: consent was not given.",
		Data: json.RawMessage("null"), Warnings: []string{}, NextActions: []api.NextAction{},
		Error:       &api.ToolError{Code: api.CodeConfirmRequired, Message: tool + " changes your project: confirm at the prompt, or pass --yes"},
		Recoverable: new(true)}
}
