package mcpclient_test

import (
	"context"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/internal/testkit"
)

// askServer is an MCP server whose tool ask puts a question to the client
// while it answers, and whose tool later asks one once the test says so,
// after the call has been answered; the server's side of each question's
// answer (its action, or the error that ended it) reaches asked. Its
// questions end by their request's context or with the test, so that a
// question vq leaves open fails the test instead of hanging its Close.
type askServer struct {
	endpoint string
	asked    chan string
	askLater chan struct{}
}

func newAskServer(t *testing.T, ctx context.Context) askServer {
	t.Helper()
	s := askServer{asked: make(chan string, 2), askLater: make(chan struct{})}
	question := &mcp.ElicitParams{Message: "Which colour?", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"colour": map[string]any{"type": "string"}}}}
	elicit := func(reqCtx context.Context, session *mcp.ServerSession) {
		reqCtx, cancel := context.WithCancel(reqCtx)
		defer cancel()
		defer context.AfterFunc(ctx, cancel)()
		res, err := session.Elicit(reqCtx, question)
		if err != nil {
			s.asked <- "error: " + err.Error()
			return
		}
		s.asked <- res.Action
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "asks", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			elicit(ctx, req.Session)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "asked"}}}, nil
		})
	server.AddTool(&mcp.Tool{Name: "later", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			go func() {
				select {
				case <-s.askLater:
					elicit(ctx, req.Session)
				case <-ctx.Done():
				}
			}()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "answered"}}}, nil
		})
	s.endpoint = testkit.ServeMCP(t, server, nil)
	return s
}

// A question nobody answers ends with the call it came with: the call's
// bound (--timeout, a wall bound) ends it, the handler hears it, the call
// returns its timeout answer rather than waiting on the person, and the
// server hears the question's end (vq's cancel, or the call's
// cancellation) before vq hangs up.
func TestElicitationEndsWithItsCall(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := newAskServer(t, ctx)
	ended := make(chan struct{})
	c := mcpclient.New(mcpclient.Options{Options: api.Options{Timeout: 300 * time.Millisecond, NoRetry: true}, OverMCP: true, Endpoint: s.endpoint, CallBound: true,
		Elicit: func(qctx context.Context, e api.Elicitation) (mcp.ElicitResult, error) {
			select {
			case <-qctx.Done():
				close(ended)
			case <-ctx.Done():
			}
			return mcp.ElicitResult{Action: api.ElicitCancel}, nil
		}})
	resp, err := c.Invoke(ctx, api.Call{Tool: "ask"})
	// The tool says nothing of repeating: timed out, it may have been
	// carried out.
	if err != nil || resp.OK || resp.ErrorCode() != api.CodeMaybeApplied || !resp.Failure.TimedOut {
		t.Fatalf("a call whose question is never answered: %+v, %v", resp, err)
	}
	testkit.Receive(t, ctx, ended, "the question's context to end with its call")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	heard := testkit.Receive(t, ctx, s.asked, "the server to hear its question end")
	if heard != api.ElicitCancel && !strings.Contains(heard, "context canceled") {
		t.Errorf("the server's question ended with %q, want vq's cancel or the call's cancellation", heard)
	}
}

// A question asked when no call is in flight has no one waiting on its
// answer: it is declined without being put to anyone.
func TestElicitationOutsideACallIsDeclined(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := newAskServer(t, ctx)
	c := mcpclient.New(mcpclient.Options{Options: api.Options{NoRetry: true}, OverMCP: true, Endpoint: s.endpoint,
		Elicit: func(context.Context, api.Elicitation) (mcp.ElicitResult, error) {
			t.Error("a question outside any call was put to the person")
			return mcp.ElicitResult{Action: api.ElicitAccept}, nil
		}})
	defer c.Close()
	if resp, err := c.Invoke(ctx, api.Call{Tool: "later"}); err != nil || !resp.OK {
		t.Fatalf("later: %+v, %v", resp, err)
	}
	close(s.askLater)
	if got := testkit.Receive(t, ctx, s.asked, "the server to hear its answer"); got != api.ElicitDecline {
		t.Errorf("the server heard %q, want decline", got)
	}
}

// The requested schema is read field by field, as the form asks it: a
// titled enum (oneOf) is a choice labelled by its titles, bounds are kept,
// and an array of choices (items.enum, or titled items.anyOf) is a
// multi-select with its bounds.
func TestElicitationSchemaIsReadAsTheFormAsks(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	one, ten, three := 1.0, 10.0, 3
	server := mcp.NewServer(&mcp.Implementation{Name: "kinds", Version: "1"}, nil)
	ask := func(name string, schema map[string]any) {
		server.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				_, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: name, RequestedSchema: schema})
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "asked"}}}, err
			})
	}
	ask("kinds", map[string]any{"type": "object", "properties": map[string]any{
		"size": map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "s", "title": "Small"}, map[string]any{"const": "l", "title": "Large"}}},
		"n":    map[string]any{"type": "integer", "minimum": 1, "maximum": 10},
		"name": map[string]any{"type": "string", "minLength": 3},
	}, "required": []any{"n"}})
	ask("tags", map[string]any{"type": "object", "properties": map[string]any{
		"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"a", "b"}}, "maxItems": 2},
	}})
	ask("sizes", map[string]any{"type": "object", "properties": map[string]any{
		"sizes": map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"const": "s", "title": "Small"}, map[string]any{"const": "l", "title": "Large"}}}},
	}})
	endpoint := testkit.ServeMCP(t, server, nil)
	got := map[string]api.Elicitation{}
	c := mcpclient.New(mcpclient.Options{Options: api.Options{NoRetry: true}, OverMCP: true, Endpoint: endpoint,
		Elicit: func(_ context.Context, e api.Elicitation) (mcp.ElicitResult, error) {
			got[e.Message] = e
			return mcp.ElicitResult{Action: api.ElicitDecline}, nil
		}})
	defer c.Close()
	for _, tool := range []string{"kinds", "tags", "sizes"} {
		if _, err := c.Invoke(ctx, api.Call{Tool: tool}); err != nil {
			t.Fatal(err)
		}
	}
	want := []api.ElicitField{
		{Name: "n", Type: "integer", Required: true, Minimum: &one, Maximum: &ten},
		{Name: "name", Type: "string", MinLength: &three},
		{Name: "size", Type: "string", Enum: []string{"s", "l"}, EnumNames: []string{"Small", "Large"}},
	}
	if kinds := got["kinds"]; !reflect.DeepEqual(kinds.Fields, want) || !kinds.Askable() {
		t.Errorf("fields %+v (askable %v), want %+v", kinds.Fields, kinds.Askable(), want)
	}
	two := 2
	for name, want := range map[string]api.ElicitField{
		"tags":  {Name: "tags", Type: "array", Enum: []string{"a", "b"}, MaxItems: &two},
		"sizes": {Name: "sizes", Type: "array", Enum: []string{"s", "l"}, EnumNames: []string{"Small", "Large"}},
	} {
		if e := got[name]; len(e.Fields) != 1 || !reflect.DeepEqual(e.Fields[0], want) || !e.Askable() {
			t.Errorf("%s: %+v (askable %v), want a multi-select %+v", name, e.Fields, e.Askable(), want)
		}
	}
}

// Without --timeout a call's bound is the server's silence: a person
// taking longer than it to answer is not the server idling, and the
// answer goes through.
func TestAPersonAnsweringIsNotTheServerIdling(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	s := newAskServer(t, ctx)
	c := mcpclient.New(mcpclient.Options{Options: api.Options{Timeout: 200 * time.Millisecond, NoRetry: true}, OverMCP: true, Endpoint: s.endpoint,
		Elicit: func(ctx context.Context, e api.Elicitation) (mcp.ElicitResult, error) {
			select {
			case <-time.After(600 * time.Millisecond): // three idle bounds
			case <-ctx.Done():
				return mcp.ElicitResult{Action: api.ElicitCancel}, nil
			}
			return mcp.ElicitResult{Action: api.ElicitAccept, Content: map[string]any{"colour": "green"}}, nil
		}})
	defer c.Close()
	resp, err := c.Invoke(ctx, api.Call{Tool: "ask"})
	if err != nil || !resp.OK {
		t.Fatalf("the call: %+v, %v", resp, err)
	}
	if got := testkit.Receive(t, ctx, s.asked, "the server to hear its answer"); got != api.ElicitAccept {
		t.Errorf("the server heard %q, want accept", got)
	}
}

// A server of 2026-07-28 asks within the call's answer (an input-required
// result) and, refused, may ask the same again: vq puts a question to the
// person once per call, and the call ends saying so, not sent again.
func TestAQuestionAskedAgainAfterARefusalEndsTheCall(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	server := mcp.NewServer(&mcp.Implementation{Name: "insists", Version: "1"}, nil)
	var rounds atomic.Int32
	server.AddTool(&mcp.Tool{Name: "insist", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rounds.Add(1)
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
				Message: "What is your name?", RequestedSchema: map[string]any{"type": "object",
					"properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}}}}, nil
		})
	endpoint := testkit.ServeMCP(t, server, &mcp.StreamableHTTPOptions{Stateless: true})
	var asked atomic.Int32
	c := mcpclient.New(mcpclient.Options{OverMCP: true, Endpoint: endpoint,
		Elicit: func(context.Context, api.Elicitation) (mcp.ElicitResult, error) {
			asked.Add(1)
			return mcp.ElicitResult{Action: api.ElicitDecline}, nil
		}})
	defer c.Close()
	resp, err := c.Invoke(ctx, api.Call{Tool: "insist"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.OK || resp.ErrorCode() != api.CodeToolError || resp.ErrorMessage() != `the server asked "What is your name?" again after vq refused it; vq answers a question once per call` {
		t.Errorf("got %s: %s", resp.ErrorCode(), resp.ErrorMessage())
	}
	if asked.Load() != 1 || rounds.Load() != 2 {
		t.Errorf("the person was asked %d times over %d rounds, want once over 2", asked.Load(), rounds.Load())
	}
}
