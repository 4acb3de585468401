package mcpserve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/completions"
	"github.com/visualq/vq/internal/textsafe"
)

// servedPrompt is a workflow an agent's user starts by name; its arguments are
// the tools', completed from the answers passed on.
type servedPrompt struct {
	prompt *mcp.Prompt
	text   func(a map[string]string, readOnly bool) string // from sanitized arguments; readOnly leaves out writes
}

var (
	runIDArgument    = &mcp.PromptArgument{Name: "runId", Title: "Run", Description: "the VisualQ run", Required: true}
	scenarioArgument = &mcp.PromptArgument{Name: "scenarioLabel", Title: "Scenario", Description: "the scenario's label", Required: true}
	viewportArgument = &mcp.PromptArgument{Name: "viewport", Title: "Viewport", Description: "the viewport's name", Required: true}
)

var servedPrompts = []servedPrompt{
	{
		prompt: &mcp.Prompt{Name: "triage_run", Title: "Triage a run", Description: "Go through a VisualQ run's failed checks and their diffs",
			Arguments: []*mcp.PromptArgument{runIDArgument}},
		text: func(a map[string]string, _ bool) string {
			return fmt.Sprintf("Triage VisualQ run %[1]s: call %[2]s with runId %[1]s, then %[3]s for each failure its next actions name, and look at the diff images. "+
				"Tell me which changes look intended and which look like regressions. Approve nothing without asking me.",
				a["runId"], api.ToolRunFailures, api.ToolDiffStats)
		},
	},
	{
		prompt: &mcp.Prompt{Name: "review_diff", Title: "Review a visual change", Description: "Judge one check's diff and, with your consent, approve it",
			Arguments: []*mcp.PromptArgument{runIDArgument, scenarioArgument, viewportArgument}},
		text: func(a map[string]string, readOnly bool) string {
			text := fmt.Sprintf("Review the visual change of scenario %q at viewport %q in VisualQ run %s: call %s with these arguments, look at its diff image, and say whether the change looks intended.",
				a["scenarioLabel"], a["viewport"], a["runId"], api.ToolDiffStats)
			if !readOnly {
				text += fmt.Sprintf(" If I agree that it is, approve it with %s and the argument confirm: true.", api.ToolApprove)
			}
			return text
		},
	},
	{
		prompt: &mcp.Prompt{Name: "prove_ticket", Title: "Prove a JIRA ticket", Description: "Prove a ticket's tracking and get the comment to paste",
			Arguments: []*mcp.PromptArgument{{Name: "ticket", Title: "Ticket", Description: "the JIRA ticket (BN-470)", Required: true}}},
		text: func(a map[string]string, _ bool) string {
			return fmt.Sprintf("Prove JIRA ticket %s with %s, sending a progress token so that the call answers with the final result. "+
				"Quote its proofOutcome.headline to me as it is, then the verdict and the reasons; give me jiraMarkdown verbatim, to paste into the ticket; if the proof failed, propose its next actions.",
				a["ticket"], api.ToolProve)
		},
	},
}

func (s *agentServer) addPrompts() {
	for _, p := range servedPrompts {
		s.server.AddPrompt(p.prompt, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			args := map[string]string{}
			for _, a := range p.prompt.Arguments {
				v := textsafe.SanitizeLine(req.Params.Arguments[a.Name])
				if v == "" {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %s needs the argument %s", p.prompt.Name, a.Name)}
				}
				args[a.Name] = v
			}
			return &mcp.GetPromptResult{Description: p.prompt.Description, Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: p.text(args, s.opts.ReadOnly)}},
			}}, nil
		})
	}
}

// maxCompletions caps one completion/complete answer, as MCP does.
const maxCompletions = 100

// complete answers completion/complete for the prompts' arguments from the
// answers passed on, then the completion cache's run ids.
func (s *agentServer) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	if p.Ref.Type != "ref/prompt" || !slices.ContainsFunc(servedPrompts, func(sp servedPrompt) bool { return sp.prompt.Name == p.Ref.Name }) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no prompt %q is served (vq mcp serve completes its prompts' arguments)", textsafe.SanitizeLine(p.Ref.Name))}
	}
	var context map[string]string
	if p.Context != nil {
		context = p.Context.Arguments
	}
	var recalled cmdutil.Distinct
	for _, v := range s.recall.values(p.Argument.Name, context) {
		recalled.Add(v)
	}
	if p.Argument.Name == completions.RunID {
		for _, id := range completions.Open(s.factory.Getenv).Recent(completions.RunID) {
			recalled.Add(id)
		}
	}
	values := slices.DeleteFunc(recalled.List, func(v string) bool { return !strings.HasPrefix(strings.ToLower(v), strings.ToLower(p.Argument.Value)) })
	total := len(values)
	values = values[:min(total, maxCompletions)]
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: total, HasMore: total > len(values)}}, nil
}

const (
	maxRecalledRuns   = 50 // bounds on what recall keeps
	maxRecalledChecks = 500
	maxRecalledValue  = 200 // the longest id or label kept
)

// recall is what completion remembers of the answers passed on: runs and their
// checks, newest first, bounded.
type recall struct {
	mu     sync.Mutex
	runs   []string
	checks []recalledCheck
}

type recalledCheck struct{ run, scenario, viewport string }

// remember records the run and checks atop an answer's data, failures and next actions.
func (r *recall) remember(resp *api.ToolResponse) {
	run := dataString(resp, completions.RunID)
	found := []recalledCheck{{run, dataString(resp, "scenarioLabel"), dataString(resp, "viewport")}}
	for _, f := range listedFailures(resp, maxRecalledChecks) {
		found = append(found, recalledCheck{run, f.ScenarioLabel, f.Viewport})
	}
	for _, a := range resp.NextActions {
		arg := func(k string) string { v, _ := a.Args[k].(string); return v }
		found = append(found, recalledCheck{arg(completions.RunID), arg("scenarioLabel"), arg("viewport")})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range slices.Backward(found) {
		if !recallable(c.run) || !recallable(c.scenario) || !recallable(c.viewport) {
			continue
		}
		if c.run != "" {
			r.runs = newestFirst(r.runs, c.run, maxRecalledRuns)
		}
		if c.scenario != "" {
			r.checks = newestFirst(r.checks, c, maxRecalledChecks)
		}
	}
}

// recallable reports a value worth offering: empty, or a plain name not too long.
func recallable(v string) bool { return v == "" || textsafe.Plain(v) && len(v) <= maxRecalledValue }

// newestFirst is list with v at its head, once, at most limit long.
func newestFirst[T comparable](list []T, v T, limit int) []T {
	list = slices.DeleteFunc(list, func(x T) bool { return x == v })
	list = slices.Insert(list, 0, v)
	return list[:min(len(list), limit)]
}

// values are a prompt argument's remembered values, newest first, of the run
// (and scenario) the context names.
func (r *recall) values(arg string, context map[string]string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if arg == completions.RunID {
		return slices.Clone(r.runs)
	}
	var out cmdutil.Distinct
	for _, c := range r.checks {
		if run := context[completions.RunID]; run != "" && c.run != "" && run != c.run {
			continue
		}
		switch arg {
		case "scenarioLabel":
			out.Add(c.scenario)
		case "viewport":
			if scenario := context["scenarioLabel"]; c.viewport != "" && (scenario == "" || scenario == c.scenario) {
				out.Add(c.viewport)
			}
		}
	}
	return out.List
}
