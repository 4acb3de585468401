package mcpclient_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/internal/testkit"
)

// vq asks for the newest MCP revision and falls back: a server that speaks
// only the newest works, and so does one that speaks only an older one.
// The revision a call was made in is the MCP-Protocol-Version header the
// server received with tools/call.
func TestCallsUseTheNewestRevisionTheServerSpeaks(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	for _, tc := range []struct {
		name      string
		stateless bool
		speaks    []string
		expected  string
	}{
		// The SDK serves 2026-07-28 only from a stateless handler.
		{"every revision", true, nil, "2026-07-28"},
		{"only the newest", true, []string{"2026-07-28"}, "2026-07-28"},
		{"sessions, every revision before the newest", false, nil, "2025-11-25"},
		{"only 2025-06-18", false, []string{"2025-06-18"}, "2025-06-18"},
		{"only 2025-03-26", false, []string{"2025-03-26"}, "2025-03-26"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "revision", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: tc.speaks})
			server.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echoed"}}}, nil
				})
			handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: tc.stateless})
			var mu sync.Mutex
			var revisions []string
			srv := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && strings.Contains(peekMethod(r), `"tools/call"`) {
					mu.Lock()
					revisions = append(revisions, r.Header.Get("MCP-Protocol-Version"))
					mu.Unlock()
				}
				handler.ServeHTTP(w, r)
			}))
			c := mcpclient.New(mcpclient.Options{OverMCP: true, Endpoint: srv.URL})
			t.Cleanup(func() { c.Close() })

			resp, err := c.Invoke(ctx, api.Call{Tool: "echo"})
			if err != nil {
				t.Fatal(err)
			}
			if !resp.OK || resp.Summary != "echoed" {
				t.Fatalf("call failed: %+v", resp)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(revisions) != 1 || revisions[0] != tc.expected {
				t.Fatalf("tools/call was sent in revisions %q, want one in %s", revisions, tc.expected)
			}
		})
	}
}

// In 2026-07-28 the arguments a tool's schema marks x-mcp-header travel in
// Mcp-Param-* headers too (SEP-2243): vq lists the tools before the call,
// whose schema the headers are built from.
func TestArgumentsMarkedForHeadersAreMirrored(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	server := mcp.NewServer(&mcp.Implementation{Name: "headers", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "deploy", InputSchema: map[string]any{"type": "object", "properties": map[string]any{
		"region": map[string]any{"type": "string", "x-mcp-header": "Region"},
		"note":   map[string]any{"type": "string"},
	}}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed"}}}, nil
	})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
	var mu sync.Mutex
	var calls []http.Header
	srv := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.Contains(peekMethod(r), `"tools/call"`) {
			mu.Lock()
			calls = append(calls, r.Header.Clone())
			mu.Unlock()
		}
		handler.ServeHTTP(w, r)
	}))
	c := mcpclient.New(mcpclient.Options{OverMCP: true, Endpoint: srv.URL})
	t.Cleanup(func() { c.Close() })

	resp, err := c.Invoke(ctx, api.Call{Tool: "deploy", Args: map[string]any{"region": "eu-west1", "note": "n"}})
	if err != nil || !resp.OK {
		t.Fatalf("call failed: %v %+v", err, resp)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || calls[0].Get("Mcp-Param-Region") != "eu-west1" || calls[0].Get("Mcp-Param-Note") != "" {
		t.Fatalf("tools/call headers: %v", calls)
	}
}

// tools/list is bounded as every MCP request is: a server that opens the
// session and never answers the list ends the listing at the timeout.
func TestAToolListThatNeverComesEndsAtTheTimeout(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	server := mcp.NewServer(&mcp.Implementation{Name: "mute", Version: "1"}, nil)
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	srv := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.Contains(peekMethod(r), `"tools/list"`) {
			<-r.Context().Done() // never answers
			return
		}
		handler.ServeHTTP(w, r)
	}))
	c := mcpclient.New(mcpclient.Options{Options: api.Options{Timeout: 300 * time.Millisecond, NoRetry: true}, OverMCP: true, Endpoint: srv.URL})
	t.Cleanup(func() { c.Close() })

	done := make(chan *api.ToolResponse, 1)
	go func() {
		_, failure, _ := c.ListTools(ctx)
		done <- failure
	}()
	failure := testkit.Receive(t, ctx, done, "the listing to end at its timeout")
	if failure == nil || failure.ErrorCode() != api.CodeHTTPError || !strings.Contains(failure.ErrorMessage(), "timed out") {
		t.Errorf("the listing ended with %+v", failure)
	}
}
