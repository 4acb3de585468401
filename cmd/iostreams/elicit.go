package iostreams

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/ui"
)

// elicitor answers a server's questions (MCP elicitation, form mode) on
// the terminal of the command whose call the server asks them in.
type elicitor struct {
	term *Terminal
	// defaults accepts a question with its schema's defaults, without
	// asking (--elicit-defaults).
	defaults bool
}

// Elicitor answers a server's questions (MCP elicitation) on t;
// defaults accepts each with its schema's defaults (--elicit-defaults).
func (t *Terminal) Elicitor(defaults bool) func(context.Context, api.Elicitation) (mcp.ElicitResult, error) {
	return elicitor{term: t, defaults: defaults}.answer
}

// answer answers e. With --elicit-defaults it accepts the schema's
// defaults without asking (declining still when a required field has
// none). Otherwise a person at a terminal is asked with a form: inside the
// TUI while it runs, which owns the terminal, else on stderr. A script
// (and an agent) declines at once, as vq does a question it has no form
// for or one too large for a form (ui.CheckQuestion; the TUI declines
// those itself, and says why). Outside the TUI, whose screen says it, a
// note on stderr tells what the server asked, in one bounded line, and
// what was answered.
func (q elicitor) answer(ctx context.Context, e api.Elicitation) (mcp.ElicitResult, error) {
	if !q.defaults && e.Askable() {
		if answer, asked := q.term.session.Ask(ctx, e); asked {
			return answer, nil
		}
	}
	var answer mcp.ElicitResult
	var how string
	switch {
	case q.defaults:
		answer = defaultsAnswer(e)
		how = "accepted with its defaults"
		if answer.Action != api.ElicitAccept {
			how = "declined: a required field has no default"
		}
	case !q.term.forms:
		answer = mcp.ElicitResult{Action: api.ElicitDecline}
		how = "declined (on a terminal vq asks; --elicit-defaults accepts the defaults)"
	case !e.Askable():
		answer = mcp.ElicitResult{Action: api.ElicitDecline}
		how = "declined: vq has no form for a field it asks for"
	case ui.CheckQuestion(e) != nil:
		answer = mcp.ElicitResult{Action: api.ElicitDecline}
		how = "declined: " + ui.CheckQuestion(e).Error()
	default:
		answer = q.term.askForm(ctx, e)
		how = ui.Outcome(answer.Action)
	}
	if !q.term.session.Running() {
		q.term.Print.Note(fmt.Sprintf("the server asks: %s: %s", ui.QuestionLine(e), how))
	}
	return answer, nil
}

// defaultsAnswer accepts an elicitation with the schema's defaults, which
// a script may ask for: it declines instead when a required field has no
// default, as no answer vq could make up would be the user's.
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
