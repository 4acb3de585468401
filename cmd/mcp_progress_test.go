package cmd

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/internal/testkit"
)

// progressServer has one tool, slow, that reports three steps of progress
// to the token of its call before it answers.
func progressServer(t *testing.T) string {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "slow", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			token := req.Params.GetProgressToken()
			if token == nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no progress token"}}}, nil
			}
			for step := 1; step <= 3; step++ {
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(step), Total: 3, Message: fmt.Sprintf("step %d\x1b[2J", step)})
				if err != nil {
					return nil, err
				}
				// The work goes on once the client has taken the report:
				// a client handles a server's messages in order, so its
				// answer to a ping follows its handling of the report
				// (its answer to the call may not).
				if err := req.Session.Ping(ctx, nil); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	return testkit.ServeMCP(t, server, nil)
}

func TestMCPCallProgressIsShownAsJobsProgressIs(t *testing.T) {
	t.Parallel()
	endpoint := progressServer(t)
	// In a pipe: one line per change, nothing else on stderr.
	out, errOut, exit := runVQ(t, nil, "--endpoint", endpoint, "invoke", "slow")
	if exit != 0 || out != "done\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", exit, out, errOut)
	}
	for step := 1; step <= 3; step++ {
		if want := fmt.Sprintf("slow running %d/3 step %d (", step, step); !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "\x1b") || strings.Count(errOut, "\n") != 3 {
		t.Errorf("stderr in a pipe:\n%q", errOut)
	}

	// On a terminal (--json keeps the TUI closed): the live bars.
	out, errOut, exit = vqRun{TTY: true, Env: map[string]string{"TERM": "xterm-256color"}}.run(t, "--endpoint", endpoint, "invoke", "slow", "--json")
	if exit != 0 || !strings.Contains(out, `"ok": true`) || !strings.Contains(errOut, "█") || !strings.Contains(errOut, "running  3/3  step 3") || strings.Contains(errOut, "\x1b[2J") {
		t.Errorf("on a terminal: exit %d, stdout %q, stderr %q", exit, out, errOut)
	}
}
