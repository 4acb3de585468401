package cmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/testkit"
)

// signupSchema asks for every kind of field vq has a form for: a string,
// an integer with a default, an enum with labels and a boolean.
var signupSchema = map[string]any{"type": "object", "properties": map[string]any{
	"name":   map[string]any{"type": "string", "title": "Your name", "description": "as on your badge"},
	"count":  map[string]any{"type": "integer", "title": "How many", "default": 3},
	"colour": map[string]any{"type": "string", "title": "Colour", "enum": []any{"red", "green", "blue"}, "enumNames": []any{"Red", "Green", "Blue"}},
	"notify": map[string]any{"type": "boolean", "title": "Notify me"},
}, "required": []any{"name", "colour"}}

// questionServer is an MCP server whose tool signup asks the person the
// schema's question while it answers. What it heard back, the action and
// the content as JSON, reaches heard and is its answer.
func questionServer(t *testing.T, schema map[string]any) (endpoint string, heard chan string) {
	t.Helper()
	return questionServerAsking(t, "Sign up for the run\x1b[2J", schema)
}

// questionServerAsking is questionServer asking with message. With next
// actions, its answer is a ToolResponse offering them, which keeps the TUI
// open.
func questionServerAsking(t *testing.T, message string, schema map[string]any, next ...map[string]any) (endpoint string, heard chan string) {
	t.Helper()
	heard = make(chan string, 1)
	server := mcp.NewServer(&mcp.Implementation{Name: "signup", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "signup", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Progress first: its live view must leave the form alone.
			if token := req.Params.GetProgressToken(); token != nil {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 2, Message: "preparing"})
			}
			// A vq that never answers must not hold the server's close.
			ask, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			res, err := req.Session.Elicit(ask, &mcp.ElicitParams{Message: message, RequestedSchema: schema})
			if err != nil {
				return nil, err
			}
			content, err := json.Marshal(res.Content)
			if err != nil {
				return nil, err
			}
			heard <- res.Action + " " + string(content)
			result := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "heard " + res.Action + " " + string(content)}}}
			if len(next) > 0 {
				result.StructuredContent = map[string]any{"ok": true, "tool": "signup", "summary": "heard " + res.Action,
					"data": map[string]any{}, "warnings": []string{}, "nextActions": next}
			}
			return result, nil
		})
	return testkit.ServeMCP(t, server, nil), heard
}

// On a terminal a question is answered without a form when no form can
// answer it: --elicit-defaults answers with the defaults, a terminal that
// draws no form (TERM=dumb) declines.
func TestElicitationOnATerminalWithoutAForm(t *testing.T) {
	t.Parallel()
	withDefaults := map[string]any{"type": "object", "properties": map[string]any{
		"count": map[string]any{"type": "integer", "default": 3},
	}}
	for _, tc := range []struct {
		name   string
		schema map[string]any
		term   string
		args   []string
		heard  string
		notice string
	}{
		{"--elicit-defaults", withDefaults, "xterm-256color", []string{"--elicit-defaults"}, `accept {"count":3}`, "accepted with its defaults"},
		{"TERM=dumb", signupSchema, "dumb", nil, "decline null", "declined (on a terminal vq asks; --elicit-defaults accepts the defaults)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			endpoint, heard := questionServer(t, tc.schema)
			run := vqRun{TTY: true, Env: map[string]string{"TERM": tc.term}}
			// --json keeps the TUI closed; stdin, a reader that ends at
			// once, would answer no form.
			out, errOut, exit := run.run(t, append([]string{"--endpoint", endpoint, "invoke", "signup", "--json"}, tc.args...)...)
			if got := <-heard; got != tc.heard {
				t.Errorf("the server heard %s, want %s", got, tc.heard)
			}
			if exit != 0 || !strings.Contains(out, "heard "+strings.ReplaceAll(tc.heard, `"`, `\"`)) ||
				!strings.Contains(errOut, "the server asks: Sign up for the run: "+tc.notice) || strings.Contains(errOut, "The server asks") {
				t.Errorf("exit %d, stdout %q, stderr %q", exit, out, errOut)
			}
		})
	}
}
