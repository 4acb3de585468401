package format

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// AgentText is an answer as vq mcp serve returns it to an agent, sanitized: clients show it on terminals.
func AgentText(r *api.ToolResponse) string {
	var lines []string
	if r.Summary != "" {
		lines = append(lines, r.Summary)
	}
	if !r.OK {
		e := "error: " + r.ErrorCode()
		if msg := r.ErrorMessage(); msg != r.Summary {
			e += ": " + msg
		}
		if r.IsRecoverable() {
			e += " (recoverable)"
		}
		lines = append(lines, e)
	}
	if r.ErrorCode() == api.CodeConfirmRequired {
		// In the agent's terms, not vq's command-line syntax.
		lines = append(lines, "consent: nothing was written; ask your user, and if they agree call "+r.Tool+" again with the argument confirm: true")
	}
	for _, w := range r.Warnings {
		lines = append(lines, "warning: "+w)
	}
	for _, a := range r.NextActions {
		line := fmt.Sprintf("next action: %s: %s", a.Label, a.Tool)
		if len(a.Args) > 0 {
			args, _ := json.Marshal(a.Args) // decoded from JSON: cannot fail
			line += " " + string(args)
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		lines = append(lines, r.Tool+": ok")
	}
	return textsafe.Sanitize(strings.Join(lines, "\n"))
}
