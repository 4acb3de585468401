package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui"
)

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

// Approve runs vq approve: one call per filter, asked for once on a
// terminal in words that say how many checks it approves, several sent as
// a batch (bounded concurrency, rate limits waited out, none sent twice).
// With dryRun the calls are shown and nothing is sent.
func (p *Pipeline) Approve(ctx context.Context, runID string, checks []check, dryRun bool) error {
	spec := api.MustTool(api.ToolApprove)
	calls := make([]api.Call, len(checks))
	for i, c := range checks {
		call, err := spec.Call(approveArgs(runID, c))
		if err != nil {
			return &exitcode.UsageError{Reason: err.Error()}
		}
		calls[i] = call
	}
	if dryRun {
		return p.Show(ctx, dryRunAnswer(runID, checks, calls))
	}
	yes := p.f.Global.Yes
	if !yes && p.canPrompt() {
		agreed, err := p.promptApprove(ctx, runID, checks)
		if err != nil {
			return err
		}
		if !agreed {
			return p.Show(ctx, declined(calls[0].Tool))
		}
		yes = true
	}
	if len(calls) == 1 {
		if yes {
			calls[0] = calls[0].WithConfirm()
		}
		return p.Run(ctx, calls[0])
	}
	if !yes {
		// A script is never asked: nothing is sent without --yes.
		return p.Show(ctx, declined(calls[0].Tool))
	}
	return p.sendBatch(ctx, runID, calls)
}

// promptApprove asks once for the whole approval, saying how many checks
// it approves: the filters that name one check each count themselves,
// others are counted on the run's failures (a read) when the server
// answers.
func (p *Pipeline) promptApprove(ctx context.Context, runID string, checks []check) (bool, error) {
	count := ""
	if all := len(checks); checks[0].pinned() {
		count = fmt.Sprintf("%d %s", all, plural(all, "check", "checks"))
	} else if n, ok := p.countFailing(ctx, runID, checks); ok {
		count = fmt.Sprintf("%d failing %s", n, plural(n, "check", "checks"))
	} else {
		count = "the failing checks"
	}
	names := make([]string, 0, 3)
	for _, c := range checks[:min(3, len(checks))] {
		names = append(names, c.String())
	}
	if len(checks) > 3 {
		names = append(names, fmt.Sprintf("and %d more", len(checks)-3))
	}
	return p.askYesNo(ctx, fmt.Sprintf("approve_vrt_results approves %s of %s as the new baseline (%s).\nApprove %s?",
		count, textsafe.SanitizeLine(runID), textsafe.SanitizeLine(strings.Join(names, ", ")), count))
}

// countFailing counts the run's failing checks that the filters match.
func (p *Pipeline) countFailing(ctx context.Context, runID string, checks []check) (int, bool) {
	resp, err := p.Send(ctx, api.Call{Tool: api.ToolRunFailures, Args: map[string]any{"runId": runID}})
	if err != nil || !resp.OK {
		return 0, false
	}
	listed, ok := layout.ChecksOf(resp.Data)
	if !ok {
		return 0, false
	}
	n := 0
	for _, ch := range listed.Listed {
		for _, c := range checks {
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

// sendBatch sends the approvals with consent given, a line of progress
// each on stderr, and shows one answer for them all. Ctrl-C stops it: the
// summary on stderr says what was not sent, and vq exits as interrupted.
func (p *Pipeline) sendBatch(ctx context.Context, runID string, calls []api.Call) error {
	client, s, err := p.connect(ctx)
	if err != nil {
		return err
	}
	if !s.hasCredential() {
		return p.Show(ctx, api.MissingCredential(calls[0].Tool))
	}
	confirmed := make([]api.Call, len(calls))
	for i, c := range calls {
		confirmed[i] = c.WithConfirm()
	}
	describe := func(c api.Call) string {
		return check{scenario: fmt.Sprint(c.Args["scenarioLabel"]), viewport: fmt.Sprint(c.Args["viewport"])}.String()
	}
	errOut := p.f.IO.ErrOut
	finished := 0
	outcomes := ui.RunBatch(ctx, confirmed, client.Invoke, ui.BatchOptions{OnDone: func(i int, o ui.BatchOutcome) {
		finished++
		state := "approved"
		switch o.State {
		case ui.BatchRefused:
			state = "refused"
		case ui.BatchInterrupted, ui.BatchNotSent:
			return
		}
		fmt.Fprintf(errOut, "vq: [%d/%d] %s %s\n", finished, len(calls), state, textsafe.SanitizeLine(describe(o.Call)))
	}})
	if ctx.Err() != nil {
		for _, l := range ui.BatchSummary(api.ToolApprove, outcomes, describe, len(outcomes)) {
			fmt.Fprintln(errOut, "vq: "+l)
		}
		return ctx.Err()
	}
	return p.Show(ctx, batchAnswer(runID, outcomes, describe))
}

// batchAnswer is the one answer vq shows for a batch of approvals: ok
// when every call was, else the first refusal's error, and each call's
// outcome in data.results.
func batchAnswer(runID string, outcomes []ui.BatchOutcome, describe func(api.Call) string) *api.ToolResponse {
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
		r := result{ScenarioLabel: fmt.Sprint(o.Call.Args["scenarioLabel"]), Viewport: fmt.Sprint(o.Call.Args["viewport"]), OK: o.State == ui.BatchDone}
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
	data, _ := json.Marshal(map[string]any{"runId": runID, "approved": counts.Done, "refused": counts.Refused, "results": results})
	lines := ui.BatchSummary(api.ToolApprove, outcomes, describe, 5)
	resp := &api.ToolResponse{OK: counts.Refused == 0, Tool: api.ToolApprove, Summary: strings.Join(lines, "\n"),
		Data: data, Warnings: []string{}, NextActions: []api.NextAction{
			{Label: "Re-check the failures of " + runID, Tool: api.ToolRunFailures, Args: map[string]any{"runId": runID}}}}
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
func dryRunAnswer(runID string, checks []check, calls []api.Call) *api.ToolResponse {
	data, _ := json.Marshal(map[string]any{"dryRun": true, "calls": calls})
	names := make([]string, len(checks))
	for i, c := range checks {
		names[i] = c.String()
	}
	return &api.ToolResponse{OK: true, Tool: api.ToolApprove,
		Summary: fmt.Sprintf("Dry run: would send %d %s to approve %s of %s; nothing was sent.",
			len(calls), plural(len(calls), "call", "calls"), strings.Join(names, ", "), runID),
		Data: data, Warnings: []string{}, NextActions: []api.NextAction{}}
}

// declined is the answer when consent was not given: nothing was sent.
func declined(tool string) *api.ToolResponse {
	return &api.ToolResponse{OK: false, Tool: tool, Summary: "Not sent: consent was not given.",
		Data: json.RawMessage("null"), Warnings: []string{}, NextActions: []api.NextAction{},
		Error:       &api.ToolError{Code: api.CodeConfirmRequired, Message: tool + " changes your project: confirm at the prompt, or pass --yes"},
		Recoverable: new(true)}
}
