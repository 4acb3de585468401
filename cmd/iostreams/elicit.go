package iostreams

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/ui"
)

// Elicitor answers a server's questions (MCP elicitation) on t;
// defaults accepts each with its schema's defaults (--elicit-defaults).
func (t *Terminal) Elicitor(defaults bool) func(context.Context, api.Elicitation) (mcp.ElicitResult, error) {
	return func(ctx context.Context, e api.Elicitation) (mcp.ElicitResult, error) {
		return t.elicit(ctx, e, defaults), nil
	}
}

// elicit asks with a form, in the TUI or on stderr; a script or agent declines
// at once. Outside the TUI one bounded stderr line tells question and answer.
func (t *Terminal) elicit(ctx context.Context, e api.Elicitation, defaults bool) mcp.ElicitResult {
	if !defaults && e.Askable() {
		if answer, asked := t.session.Ask(ctx, e); asked {
			return answer
		}
	}
	var answer mcp.ElicitResult
	var how string
	switch {
	case defaults:
		answer = defaultsAnswer(e)
		how = "accepted with its defaults"
		if answer.Action != api.ElicitAccept {
			how = "declined: a required field has no default"
		}
	case !t.forms:
		answer = mcp.ElicitResult{Action: api.ElicitDecline}
		how = "declined (on a terminal vq asks; --elicit-defaults accepts the defaults)"
	case !e.Askable():
		answer = mcp.ElicitResult{Action: api.ElicitDecline}
		how = "declined: vq has no form for a field it asks for"
	case ui.CheckQuestion(e) != nil:
		answer = mcp.ElicitResult{Action: api.ElicitDecline}
		how = "declined: " + ui.CheckQuestion(e).Error()
	default:
		answer = t.askForm(ctx, e)
		how = ui.Outcome(answer.Action)
	}
	if !t.session.Running() {
		t.Print.Note(fmt.Sprintf("the server asks: %s: %s", ui.QuestionLine(e), how))
	}
	return answer
}

// defaultsAnswer accepts the schema's defaults; it declines when a required field
// has none, since no made-up answer is the user's.
func defaultsAnswer(e api.Elicitation) mcp.ElicitResult {
	content := map[string]any{}
	for _, f := range e.Fields {
		if f.Default == nil {
			if f.Required {
				return mcp.ElicitResult{Action: api.ElicitDecline}
			}
			continue
		}
		content[f.Name] = f.Default
	}
	return mcp.ElicitResult{Action: api.ElicitAccept, Content: content}
}
