package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

// mcpFallbackVersion, the first revision with streamable HTTP, is asked for when initialize is refused outright.
const mcpFallbackVersion = "2025-03-26"

// mcpState is the Client's one MCP session, reused until Close or a broken connection.
type mcpState struct {
	mu         sync.Mutex
	session    *mcp.ClientSession
	http       *http.Client
	progress   sync.Map // progress token (string) → func(JobUpdate)
	progressID atomic.Int64
	tools      []api.Tool // the session's tools/list (sessionTools)
	// readOnly is each tool's readOnlyHint; it outlives a broken session for the retry policy.
	readOnly sync.Map // tool name → bool
}

// mcpSession returns the open session, connecting first when there is none.
func (c *Client) mcpSession(ctx context.Context) (*mcp.ClientSession, error) {
	c.mcp.mu.Lock()
	defer c.mcp.mu.Unlock()
	if c.mcp.session != nil {
		return c.mcp.session, nil
	}
	opts := &mcp.ClientOptions{
		// No roots or sampling: a request for them fails at once, so no call waits.
		Capabilities:                &mcp.ClientCapabilities{},
		ProgressNotificationHandler: c.onProgress,
		// inputRounds answers a call's rounds of input instead.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}
	if c.opts.Elicit != nil {
		opts.ElicitationHandler = c.onElicit
	}
	c.handleLogs(opts)
	client := mcp.NewClient(&mcp.Implementation{Name: "vq", Version: api.UserAgentVersion(c.opts.UserAgent)}, opts)
	client.AddSendingMiddleware(c.inputRounds, c.logLevelInMeta)
	client.AddReceivingMiddleware(c.refuseUnoffered)
	hctx, cancel := handshakeContext(ctx, c.opts.Timeout)
	defer cancel()
	session, err := c.connect(hctx, client, api.MCPProtocolVersion)
	if _, refused := serverRPCError(err); refused && ctx.Err() == nil {
		session, err = c.connect(hctx, client, mcpFallbackVersion)
	}
	if ctx.Err() != nil {
		// Given up during the handshake: close the session it opened.
		if err == nil {
			_ = session.Close()
		}
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	c.setLogLevel(hctx, session)
	c.mcp.session = session
	return session, nil
}

// handshakeContext bounds a handshake by timeout and lets it run giveUpBudget
// past ctx: one cut short leaves a session at the server vq cannot close.
func handshakeContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(giveUpBudget, cancel) })
	return hctx, func() { stop(); cancel() }
}

// connect opens a session over stdio or streamable HTTP, as the endpoint names.
func (c *Client) connect(ctx context.Context, client *mcp.Client, version string) (*mcp.ClientSession, error) {
	endpoint := c.MCPEndpoint()
	opts := &mcp.ClientSessionOptions{ProtocolVersion: version}
	argv, ok := StdioCommand(endpoint)
	if !ok {
		return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: c.mcpHTTPClient(), OAuthHandler: c.oauthHandler()}, opts)
	}
	child, err := c.stdioTransport(argv)
	if err != nil {
		return nil, err
	}
	session, err := client.Connect(ctx, child, opts)
	if err != nil {
		return nil, child.startFailure(ctx, err)
	}
	return session, nil
}

// forgetBrokenSession drops s so the next attempt connects afresh.
func (c *Client) forgetBrokenSession(s *mcp.ClientSession) {
	c.mcp.mu.Lock()
	defer c.mcp.mu.Unlock()
	if c.mcp.session == s {
		_ = c.dropSessionLocked()
	}
}

// callMCP is one attempt of a tool call; its progress token keeps it past the idle bound.
func (c *Client) callMCP(ctx context.Context, call api.Call) *api.ToolResponse {
	rec := newHTTPRecord()
	ctx, touch, timedOut, done := c.callContext(context.WithValue(ctx, httpRecordKey{}, rec))
	defer done()
	inFlight, end := c.inFlight.start(ctx)
	defer end()
	args := call.Args
	if args == nil {
		args = map[string]any{}
	}
	params := &mcp.CallToolParams{Name: call.Tool, Arguments: args, Meta: c.callMeta()}
	token := fmt.Sprintf("vq-%d", c.mcp.progressID.Add(1))
	hook := api.ProgressHook(ctx)
	c.mcp.progress.Store(token, func(u api.JobUpdate) {
		touch()
		if hook != nil {
			hook(u)
		}
	})
	defer c.mcp.progress.Delete(token)
	params.SetProgressToken(token)
	c.listToolsForHeaders(ctx)
	var result *mcp.CallToolResult
	sent := false // once the session is open, the call goes out
	err := c.withSession(ctx, rec, func(s *mcp.ClientSession) error {
		var err error
		sent = true
		result, err = s.CallTool(ctx, params)
		return err
	})
	if timedOut() {
		return c.timeoutFailure(call.Tool)
	}
	var info toolInfo
	if _, refused := serverRPCError(err); refused || err == nil && result.IsError {
		if info = c.toolInfo(ctx, call.Tool); info.taskRequired {
			// Asking again gets the same refusal.
			r := api.ClientError(call.Tool, api.CodeToolError, call.Tool+" runs only as an MCP task (its execution.taskSupport is required), which vq cannot run yet: the MCP Go SDK it is built on has no tasks", false)
			r.Failure.RepeatUnsafe = true
			return r
		}
	}
	switch {
	case err != nil && !sent:
		// No session: the server never saw the call.
		r := c.mcpFailure(call.Tool, rec, err)
		r.Failure.NotSent, r.Failure.Unanswered = true, false
		return c.withNotOffered(inFlight, r)
	case err != nil:
		return c.withNotOffered(inFlight, c.mcpFailure(call.Tool, rec, err))
	}
	raw, structured := rec.toolResult(result)
	if len(raw) == 0 && rec.resultMissing() {
		// No verdict, after the server had the call.
		r := api.ClientError(call.Tool, api.CodeNoVerdict, "the server answered tools/call with no result", false)
		r.Failure.Unanswered = true
		return r
	}
	return c.withNotOffered(inFlight, c.checkOutput(ctx, call.Tool, toolResponseFromMCP(call.Tool, result, raw, structured, info)))
}

// withNotOffered says a failed call's server asked for what vq does not offer; it is not sent again.
func (c *Client) withNotOffered(call *callInFlight, resp *api.ToolResponse) *api.ToolResponse {
	what := c.inFlight.notOffered(call)
	if resp.OK || what == "" {
		return resp
	}
	resp = resp.WithErrorMessage(resp.ErrorMessage() + " (the server asked for " + what + ", which vq does not offer)")
	resp.Recoverable, resp.Failure.RepeatUnsafe = new(false), true
	return resp
}

// listToolsForHeaders lists tools once per 2026-07-28 HTTP session: the SDK builds Mcp-Param-* (SEP-2243) from it.
func (c *Client) listToolsForHeaders(ctx context.Context) {
	if u, err := url.Parse(c.MCPEndpoint()); err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return
	}
	s, err := c.mcpSession(ctx)
	if err != nil || !newRevision(s) {
		return
	}
	c.sessionTools(ctx)
}

// callContext bounds one call by wall time (CallBound), or else by idle time that progress restarts.
func (c *Client) callContext(parent context.Context) (ctx context.Context, touch func(), timedOut func() bool, done func()) {
	if c.opts.CallBound {
		ctx, cancel := context.WithTimeout(parent, c.opts.Timeout)
		return ctx, func() {}, func() bool { return errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil }, cancel
	}
	ctx, cancel := context.WithCancelCause(parent)
	idle := time.AfterFunc(c.opts.Timeout, func() { cancel(errIdle) })
	// A sign-in again within the call is no silence of the server's.
	ctx = context.WithValue(ctx, boundHoldKey{}, func() func() { idle.Stop(); return func() { idle.Reset(c.opts.Timeout) } })
	return ctx, func() { idle.Reset(c.opts.Timeout) },
		func() bool { return errors.Is(context.Cause(ctx), errIdle) },
		func() { idle.Stop(); cancel(nil) }
}

var errIdle = errors.New("no answer nor progress within the timeout")

type boundHoldKey struct{}

// holdBound pauses the call's bound (for a sign-in, a person answering) and returns what restarts it.
func holdBound(ctx context.Context) (release func()) {
	if hold, ok := ctx.Value(boundHoldKey{}).(func() func()); ok {
		return hold()
	}
	return func() {}
}

// timeoutFailure is the answer to a call its bound ended.
func (c *Client) timeoutFailure(tool string) *api.ToolResponse {
	r := api.TransportFailure(tool, c.MCPEndpoint(), 0, context.DeadlineExceeded)
	if c.opts.CallBound {
		return r
	}
	return r.WithErrorMessage(r.ErrorMessage() + ": no answer nor progress for " + c.opts.Timeout.String())
}

// withSession runs op on the session: a forgotten one is replaced once; other transport failures drop
// it once the cancellation is sent; JSON-RPC errors keep it.
func (c *Client) withSession(ctx context.Context, rec *httpRecord, op func(*mcp.ClientSession) error) error {
	for attempt := 0; ; attempt++ {
		s, err := c.mcpSession(ctx)
		if err != nil {
			return err
		}
		err = op(s)
		if _, refused := serverRPCError(err); err == nil || refused || isNotOffered(err) {
			return err
		}
		rec.awaitCancelNotice(ctx, err)
		c.forgetBrokenSession(s)
		if !errors.Is(err, mcp.ErrSessionMissing) || attempt > 0 {
			return err
		}
	}
}

// callMeta carries the project and environment in the request's _meta.
func (c *Client) callMeta() mcp.Meta {
	meta := mcp.Meta{}
	if c.opts.Project != "" {
		meta[api.MetaProject] = c.opts.Project
	}
	if c.opts.Environment != "" {
		meta[api.MetaEnvironment] = c.opts.Environment
	}
	if len(meta) == 0 {
		return nil
	}
	return meta
}

// onProgress routes notifications/progress to the call that asked.
func (c *Client) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p := req.Params
	if p == nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	if fn, ok := c.mcp.progress.Load(token); ok {
		fn.(func(api.JobUpdate))(api.JobUpdate{Status: api.JobRunning, HasProgress: true, Current: p.Progress, Total: p.Total, Message: p.Message})
	}
}
