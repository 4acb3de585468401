package cmd

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/testkit"
)

// steppedServer is an SDK MCP server whose tools report progress one
// step at a time, each when the test says: stepped with a total of 3,
// counted with none.
func steppedServer(t *testing.T, next <-chan struct{}) string {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "stepped", Version: "1"}, nil)
	report := func(total float64) mcp.ToolHandler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for step := 1; step <= 3; step++ {
				select {
				case <-next:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: req.Params.GetProgressToken(), Progress: float64(step), Total: total, Message: fmt.Sprintf("step %d", step)})
				if err != nil {
					return nil, err
				}
			}
			<-next
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		}
	}
	server.AddTool(&mcp.Tool{Name: "stepped", InputSchema: map[string]any{"type": "object"}}, report(3))
	server.AddTool(&mcp.Tool{Name: "counted", InputSchema: map[string]any{"type": "object"}}, report(0))
	return testkit.ServeMCP(t, server, nil)
}

// TestTUIShowsTheServersProgressInTmux: the TUI's call shows the progress
// an MCP server reports from its first notification on, without --wait:
// a bar and the count with a total, the count so far without one.
func TestTUIShowsTheServersProgressInTmux(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("drives a terminal")
	}
	for _, tc := range []struct {
		tool  string
		shows func(step int) []string
	}{
		{"stepped", func(step int) []string { return []string{fmt.Sprintf("%d/3 step %d", step, step), "█"} }},
		{"counted", func(step int) []string { return []string{fmt.Sprintf("%d so far step %d", step, step)} }},
	} {
		next := make(chan struct{})
		endpoint := steppedServer(t, next)
		p := startTmux(t, 100, 30, map[string]string{"VQ_NO_KEYRING": "1", "VQ_CONFIG": "/dev/null", "TERM": "xterm-256color"},
			"true", "--endpoint", endpoint, "invoke", tc.tool)
		screen := p.waitFor("the call's spinner", shows("calling "+tc.tool+"…"))
		if strings.Contains(screen, "so far") || strings.Contains(screen, "/3") {
			t.Errorf("%s: progress before the server reported any:\n%s", tc.tool, screen)
		}
		for step := 1; step <= 3; step++ {
			next <- struct{}{}
			screen = p.waitFor(fmt.Sprintf("%s's step %d", tc.tool, step), shows(tc.shows(step)...))
		}
		if tc.tool == "counted" && strings.Contains(screen, "█") {
			t.Errorf("a bar without a total:\n%s", screen)
		}
		next <- struct{}{}
		p.waitFor(tc.tool+"'s answer", shows("done", "EXIT=0"))
	}
}
