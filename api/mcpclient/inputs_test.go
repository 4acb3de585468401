package mcpclient_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/internal/testkit"
)

// inputServers are the test server over each transport, in each way of
// asking for input: 2026-07-28 answers a call with what it needs, earlier
// revisions send requests of their own. count is how many times the
// server was called with a tool.
func inputServers(t *testing.T) map[string]testServer {
	stateless, statelessRec := httpTestServer(t, true)
	sessions, sessionsRec := httpTestServer(t, false)
	stdio, env, recorded := stdioTestServer(t)
	stdioOld, envOld, recordedOld := stdioTestServer(t, "VQ_TEST_STDIO_REVISION=2025-11-25")
	inProcess := func(r *recorder) func() *recorder { return func() *recorder { return r } }
	return map[string]testServer{
		"http 2026-07-28":  {mcpclient.Options{Endpoint: stateless}, inProcess(statelessRec)},
		"http 2025-11-25":  {mcpclient.Options{Endpoint: sessions}, inProcess(sessionsRec)},
		"stdio 2026-07-28": {mcpclient.Options{Endpoint: stdio, StdioEnv: env}, recorded},
		"stdio 2025-11-25": {mcpclient.Options{Endpoint: stdioOld, StdioEnv: envOld}, recordedOld},
	}
}

// testServer is a test server and what it recorded so far.
type testServer struct {
	opts     mcpclient.Options
	recorded func() *recorder
}

// count is how many times the server was called with tool.
func (s testServer) count(tool string) int { return s.recorded().count("call " + tool) }

// received reports a message the server received, by its start, waiting
// for it until ctx ends; a stdio server's record, a file, is read again
// until the message is in it.
func (s testServer) received(ctx context.Context, prefix string) bool {
	for {
		r := s.recorded()
		if found := r.await(ctx, prefix); found || r.changed != nil {
			return found
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// A server that asks for sampling or roots, which vq does not declare,
// is refused as its revision says, once: the call fails as a tool_error
// that is not recoverable nor sent again, saying what the server asked
// for. Roots are never answered, not even with an empty list.
func TestSamplingAndRootsAreRefusedOnceWhateverTheRevision(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	for name, server := range inputServers(t) {
		t.Run(name, func(t *testing.T) {
			opts := server.opts
			opts.OverMCP = true
			c := mcpclient.New(opts)
			t.Cleanup(func() { c.Close() })
			for tool, asked := range map[string]string{"sample": "the server asked for sampling (sampling/createMessage), which vq does not offer", "roots": "the server asked for roots (roots/list), which vq does not offer"} {
				resp, err := c.Invoke(ctx, api.Call{Tool: tool})
				if err != nil {
					t.Fatal(err)
				}
				if resp.OK || resp.ErrorCode() != api.CodeToolError || resp.IsRecoverable() || !strings.Contains(resp.ErrorMessage(), asked) || strings.Contains(resp.ErrorMessage(), "answered") {
					t.Errorf("%s: ok %v, %s (recoverable %v): %s", tool, resp.OK, resp.ErrorCode(), resp.IsRecoverable(), resp.ErrorMessage())
				}
				c.Close()
				if n := server.count(tool); n != 1 {
					t.Errorf("%s was called %d times, want once", tool, n)
				}
			}
		})
	}
}

// A server's question is answered whichever way its revision asks it,
// and its fields come to the person in the order of the server's schema.
func TestQuestionsAreAnsweredInEveryRevisionInSchemaOrder(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	for name, server := range inputServers(t) {
		t.Run(name, func(t *testing.T) {
			var asked []string
			opts := server.opts
			opts.OverMCP = true
			opts.Elicit = func(_ context.Context, e api.Elicitation) (mcp.ElicitResult, error) {
				for _, f := range e.Fields {
					asked = append(asked, f.Name)
				}
				return mcp.ElicitResult{Action: api.ElicitAccept, Content: map[string]any{"colour": "red"}}, nil
			}
			c := mcpclient.New(opts)
			t.Cleanup(func() { c.Close() })
			resp, err := c.Invoke(ctx, api.Call{Tool: "ask"})
			if err != nil || !resp.OK || resp.Summary != "accept red" {
				t.Fatalf("%v: %s %s", err, resp.Summary, resp.ErrorMessage())
			}
			if want := []string{"zone", "colour", "many"}; !slices.Equal(asked, want) {
				t.Errorf("fields asked in the order %q, want the schema's %q", asked, want)
			}
		})
	}
}

// A server that asks the person to open a page of its own (URL-mode
// elicitation) is declined, and the person is told why, with the page's
// host only.
func TestALinkAQuestionSendsIsDeclinedWithAWord(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	stateless, _ := httpTestServer(t, true)
	var notes []string
	c := mcpclient.New(mcpclient.Options{Options: api.Options{Notify: func(s string) { notes = append(notes, s) }}, OverMCP: true, Endpoint: stateless,
		Elicit: func(context.Context, api.Elicitation) (mcp.ElicitResult, error) {
			t.Error("a link was asked as a form")
			return mcp.ElicitResult{Action: api.ElicitAccept}, nil
		}})
	t.Cleanup(func() { c.Close() })
	resp, err := c.Invoke(ctx, api.Call{Tool: "link"})
	if err != nil || resp.Summary != "the client answered decline" {
		t.Fatalf("%v: %s %s", err, resp.Summary, resp.ErrorMessage())
	}
	if want := []string{"the server asks you to open a page of 127.0.0.1:9: Sign the form: declined (vq follows no link a server sends)"}; !slices.Equal(notes, want) {
		t.Errorf("notices %q, want %q", notes, want)
	}
}
