package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transports a Client can speak (Options.Transport).
const (
	// TransportInvoke is POST {base}/api/mcp/v1/invoke, the default.
	TransportInvoke = "invoke"
	// TransportMCP is MCP over streamable HTTP at Options.Endpoint.
	TransportMCP = "mcp"
)

// MCPPath is where a VisualQ server serves MCP under its base URL.
const MCPPath = "/api/mcp"

// MCPProtocolVersion is the MCP revision vq asks for in initialize. The
// server answers with the revision it speaks and the SDK accepts any it
// knows, so an older server (2025-06-18, 2025-03-26) still works; vq pins
// this revision rather than the SDK's newest because hosted servers and the
// conformance suite speak it, and the newer discover handshake would cost an
// extra round trip on every session.
const MCPProtocolVersion = "2025-11-25"

// mcpFallbackVersion is asked for when a server refuses initialize outright
// instead of offering its own revision: the first revision with streamable
// HTTP, which every such server speaks.
const mcpFallbackVersion = "2025-03-26"

// mcpState is the Client's one MCP session, made on first use and reused by
// every call until Close, or until the connection breaks.
type mcpState struct {
	mu      sync.Mutex
	session *mcp.ClientSession
	http    *http.Client
	// progress routes notifications/progress to the call that asked for
	// them, by progress token.
	progress   sync.Map // progress token (string) → func(JobUpdate)
	progressID atomic.Int64
}

// MCPEndpoint is the MCP endpoint the client uses: Options.Endpoint, else
// {BaseURL}/api/mcp.
func (c *Client) MCPEndpoint() string {
	if c.opts.Endpoint != "" {
		return c.opts.Endpoint
	}
	return c.opts.BaseURL + MCPPath
}

// Close ends the MCP session, if one was opened. Invoke-only clients have
// nothing to close; Close is always safe to call.
func (c *Client) Close() error {
	c.mcp.mu.Lock()
	defer c.mcp.mu.Unlock()
	return c.dropSessionLocked()
}

func (c *Client) dropSessionLocked() error {
	if c.mcp.session == nil {
		return nil
	}
	err := c.mcp.session.Close()
	c.mcp.session = nil
	return err
}

// mcpHTTPClient is plainHTTPClient behind a round tripper that adds the
// credential and records what the SDK does not report: the HTTP status and
// the WWW-Authenticate challenge of a failed request.
func (c *Client) mcpHTTPClient() *http.Client {
	if c.mcp.http == nil {
		c.mcp.http = c.plainHTTPClient()
		c.mcp.http.Transport = &mcpRoundTripper{next: c.mcp.http.Transport, c: c}
	}
	return c.mcp.http
}

type mcpRoundTripper struct {
	next http.RoundTripper
	c    *Client
}

func (t *mcpRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("User-Agent", t.c.opts.UserAgent)
	if token := t.c.bearer(); token != "" && sameOrigin(req.URL, t.c.MCPEndpoint()) {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := t.next.RoundTrip(req)
	rec, ok := req.Context().Value(httpRecordKey{}).(*httpRecord)
	if !ok || err != nil {
		return res, err
	}
	if res.StatusCode >= 400 {
		rec.set(res.StatusCode, res.Header)
	}
	body := &cappedBody{ReadCloser: res.Body, ctx: req.Context(), rec: rec, contentLength: res.ContentLength, limit: t.c.opts.MaxBodyBytes}
	res.Body = readCloser{io.TeeReader(body, bodyRecorder{rec: rec, limit: t.c.opts.MaxBodyBytes}), res.Body}
	return res, nil
}

// bodyRecorder appends what the SDK reads to the record, up to limit
// bytes; the SDK reads on its own goroutines, hence the lock.
type bodyRecorder struct {
	rec   *httpRecord
	limit int64
}

func (w bodyRecorder) Write(p []byte) (int, error) {
	w.rec.mu.Lock()
	defer w.rec.mu.Unlock()
	if room := w.limit - int64(w.rec.body.Len()); room > 0 {
		w.rec.body.Write(p[:min(int64(len(p)), room)])
	}
	return len(p), nil
}

// bearer is the credential of the MCP transport: the API key, else an
// OAuth access token (refreshed by the token source when it has expired).
// A token source that fails yields no header: the server's 401 then tells
// the user to sign in again.
func (c *Client) bearer() string {
	if c.opts.APIKey != "" {
		return c.opts.APIKey
	}
	if c.oauth != nil {
		if tok, err := c.oauth.Token(); err == nil {
			return tok.AccessToken
		}
	}
	return ""
}

func sameOrigin(u *url.URL, endpoint string) bool {
	e, err := url.Parse(endpoint)
	return err == nil && strings.EqualFold(u.Scheme, e.Scheme) && strings.EqualFold(u.Host, e.Host)
}

// httpRecord keeps the last failed HTTP status seen while one MCP request
// was carried out, so a transport error can be reported as 401 or 404.
type httpRecord struct {
	mu              sync.Mutex
	status          int
	wwwAuthenticate string
	retryAfter      string
	// bodyErr is why a response body could not be read (cut, timed out,
	// past the cap).
	bodyErr error
	// failedAt is where the failed response's body starts in body.
	failedAt int
	// body is every response body read for the request: the SDK decodes
	// structuredContent into a map, losing the server's key order, which
	// vq keeps (columns and --json follow it), so it is read again here.
	body bytes.Buffer
}

type httpRecordKey struct{}

func (r *httpRecord) set(status int, header http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status, r.wwwAuthenticate, r.retryAfter = status, header.Get("WWW-Authenticate"), header.Get("Retry-After")
	r.failedAt = r.body.Len()
}

// failedBody is what was read of the failed response's body, to quote in
// an http_error as the invoke transport does.
func (r *httpRecord) failedBody() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Clone(r.body.Bytes()[min(r.failedAt, r.body.Len()):])
}

func (r *httpRecord) get() (int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status, r.wwwAuthenticate
}

// structuredContent finds the raw structuredContent of the last tools/call
// result in the recorded bodies: a JSON body, or the data lines of an
// event stream.
func (r *httpRecord) structuredContent() json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	var found json.RawMessage
	try := func(doc []byte) {
		var msg struct {
			Result struct {
				StructuredContent json.RawMessage `json:"structuredContent"`
			} `json:"result"`
		}
		if json.Unmarshal(doc, &msg) == nil && len(msg.Result.StructuredContent) > 0 && string(msg.Result.StructuredContent) != "null" {
			found = msg.Result.StructuredContent
		}
	}
	body := r.body.Bytes()
	try(body)
	for _, line := range bytes.Split(body, []byte("\n")) {
		if data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:")); ok {
			try(bytes.TrimSpace(data))
		}
	}
	return found
}

// mcpSession returns the open session, connecting (initialize) first when
// there is none.
func (c *Client) mcpSession(ctx context.Context) (*mcp.ClientSession, error) {
	c.mcp.mu.Lock()
	defer c.mcp.mu.Unlock()
	if c.mcp.session != nil {
		return c.mcp.session, nil
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "vq", Version: userAgentVersion(c.opts.UserAgent)}, &mcp.ClientOptions{
		// vq offers the server nothing to call back (no roots, sampling or
		// elicitation): it is a command line, not an agent host.
		Capabilities:                &mcp.ClientCapabilities{},
		ProgressNotificationHandler: c.onProgress,
	})
	connect := func(version string) (*mcp.ClientSession, error) {
		transport := &mcp.StreamableClientTransport{
			Endpoint:             c.MCPEndpoint(),
			HTTPClient:           c.mcpHTTPClient(),
			DisableStandaloneSSE: true,
		}
		return client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	}
	session, err := connect(MCPProtocolVersion)
	if _, refused := serverRPCError(err); refused {
		session, err = connect(mcpFallbackVersion)
	}
	if err != nil {
		return nil, err
	}
	c.mcp.session = session
	return session, nil
}

// userAgentVersion is the version part of "vq/1.2.3", for the MCP
// clientInfo; "dev" when there is none.
func userAgentVersion(ua string) string {
	if _, v, ok := strings.Cut(ua, "/"); ok && v != "" {
		return v
	}
	return "dev"
}

// forgetBrokenSession drops a session after a transport failure, so the
// next attempt (the contract's one retry) connects afresh.
func (c *Client) forgetBrokenSession(s *mcp.ClientSession) {
	c.mcp.mu.Lock()
	defer c.mcp.mu.Unlock()
	if c.mcp.session == s {
		_ = c.dropSessionLocked()
	}
}

// callMCP is one attempt of a tool call over MCP, always answered with a
// ToolResponse.
func (c *Client) callMCP(ctx context.Context, call Call) *ToolResponse {
	rec := &httpRecord{}
	ctx = context.WithValue(ctx, httpRecordKey{}, rec)
	params := &mcp.CallToolParams{Name: call.Tool, Arguments: nonNilArgs(call.Args), Meta: c.callMeta()}
	if onProgress := progressHook(ctx); onProgress != nil {
		token := fmt.Sprintf("vq-%d", c.mcp.progressID.Add(1))
		c.mcp.progress.Store(token, onProgress)
		defer c.mcp.progress.Delete(token)
		params.SetProgressToken(token)
	}
	var result *mcp.CallToolResult
	err := c.withSession(ctx, func(s *mcp.ClientSession) error {
		var err error
		result, err = s.CallTool(ctx, params)
		return err
	})
	if err != nil {
		return c.mcpFailure(call.Tool, rec, err)
	}
	if raw := rec.structuredContent(); raw != nil {
		result.StructuredContent = raw
	}
	return toolResponseFromMCP(call.Tool, result)
}

// withSession runs op on the session. A session the server has forgotten
// (404 with a session id) is replaced once; any other transport failure
// drops the session for the next attempt. JSON-RPC errors keep it: the
// connection is fine, the request was refused.
func (c *Client) withSession(ctx context.Context, op func(*mcp.ClientSession) error) error {
	for attempt := 0; ; attempt++ {
		s, err := c.mcpSession(ctx)
		if err != nil {
			return err
		}
		err = op(s)
		if _, refused := serverRPCError(err); err == nil || refused {
			return err
		}
		c.forgetBrokenSession(s)
		if !errors.Is(err, mcp.ErrSessionMissing) || attempt > 0 {
			return err
		}
	}
}

// callMeta carries the project and environment, which the invoke transport
// sends beside the tool name, in the request's _meta: a general MCP server
// ignores unknown _meta keys, while unknown arguments could fail its schema.
func (c *Client) callMeta() mcp.Meta {
	meta := mcp.Meta{}
	if c.opts.Project != "" {
		meta[MetaProject] = c.opts.Project
	}
	if c.opts.Environment != "" {
		meta[MetaEnvironment] = c.opts.Environment
	}
	if len(meta) == 0 {
		return nil
	}
	return meta
}

// The _meta keys of a tools/call that carry vq's --project and
// --environment.
const (
	MetaProject     = "visualq/project"
	MetaEnvironment = "visualq/environment"
)

func nonNilArgs(a map[string]any) map[string]any {
	if a == nil {
		return map[string]any{}
	}
	return a
}

// toolResponseFromMCP maps a tools/call result to the contract. A VisualQ
// server puts the whole ToolResponse in structuredContent; any other server
// gets one built from its text content and isError. A failure that carries
// no structured error is the seed's unexpected error (tool_error, worth one
// retry), unless its text is the readiness lock, which is a refusal.
func toolResponseFromMCP(tool string, res *mcp.CallToolResult) *ToolResponse {
	var structured []byte
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			structured = b
			if resp, err := DecodeToolResponse(b); err == nil {
				if resp.Tool == "" {
					resp.Tool = tool
				}
				return resp
			}
		}
	}
	text := textContent(res.Content)
	resp := &ToolResponse{
		OK:          !res.IsError,
		Tool:        tool,
		Summary:     firstLine(text),
		Data:        json.RawMessage("null"),
		Warnings:    []string{},
		NextActions: []NextAction{},
	}
	if structured != nil {
		resp.Data = structured
	} else if !res.IsError && text != "" {
		resp.Data, _ = json.Marshal(map[string]string{"text": text})
	}
	if res.IsError {
		code := CodeToolError
		if _, ok := parseReadiness(text); ok {
			code = CodeProjectNotReady
		}
		resp.Error = &ToolError{Code: code, Message: text}
		resp.Recoverable = boolPtr(true)
	}
	if b, err := json.Marshal(resp); err == nil {
		resp.raw = b
	}
	return resp
}

func textContent(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok && t.Text != "" {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// mcpFailure maps what went wrong below the tool: a JSON-RPC error to the
// contract code it means, an HTTP failure to unauthorized, a wrong path, or
// http_error.
func (c *Client) mcpFailure(tool string, rec *httpRecord, err error) *ToolResponse {
	if rpcErr, ok := serverRPCError(err); ok {
		return rpcFailure(tool, rpcErr)
	}
	if err := rec.bodyError(); err != nil {
		return transportFailure(tool, 0, err)
	}
	status, challenge := rec.get()
	switch status {
	case http.StatusUnauthorized:
		return unauthorized(tool, challenge)
	case http.StatusTooManyRequests:
		r := clientError(tool, CodeRateLimit, "rate limited (HTTP 429 from "+c.MCPEndpoint()+")", true)
		r.RetryAfterMs = rec.retryAfterMs()
		return r
	case http.StatusNotFound:
		return clientError(tool, CodeHTTPError, fmt.Sprintf(
			"wrong path: the MCP server is at %s (got 404 from %s)", MCPPath, c.MCPEndpoint()), false)
	}
	if status != 0 {
		msg := fmt.Sprintf("HTTP %d %s from %s", status, http.StatusText(status), c.MCPEndpoint())
		if quoted := snippet(rec.failedBody()); quoted != "" {
			msg += ": " + quoted // when the SDK read it at all
		}
		return httpError(tool, status, msg)
	}
	if strings.Contains(err.Error(), "terminated without response") || errors.Is(err, mcp.ErrConnectionClosed) {
		return transportFailure(tool, 0, io.ErrUnexpectedEOF) // the connection was cut
	}
	return transportFailure(tool, 0, err)
}

// serverRPCError finds the JSON-RPC error object the server answered. The
// SDK also wraps its own transport failures as JSON-RPC errors (client
// closing -32003, server closing -32004, rejected by transport -32005):
// those are not the server's answer.
func serverRPCError(err error) (*jsonrpc.Error, bool) {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		return nil, false
	}
	switch rpcErr.Code {
	case -32003, -32004, -32005:
		return nil, false
	}
	return rpcErr, true
}

// rpcFailure maps a JSON-RPC error object to the contract: an unknown tool
// is not_found, bad arguments are a validation_error, anything else is the
// tool's unexpected error.
func rpcFailure(tool string, e *jsonrpc.Error) *ToolResponse {
	msg := e.Message
	switch {
	case e.Code == jsonrpc.CodeMethodNotFound,
		e.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(strings.ToLower(msg), "unknown tool"):
		return clientError(tool, CodeNotFound, msg, false)
	case e.Code == jsonrpc.CodeInvalidParams:
		return clientError(tool, CodeValidation, msg, true)
	}
	return clientError(tool, CodeToolError, fmt.Sprintf("%s (JSON-RPC error %d)", msg, e.Code), true)
}

// Tool is one entry of the server's tools/list, as vq tools shows it.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// ReadOnly and Destructive are the server's annotations (hints, not
	// guarantees). Destructive is nil when the server did not say; MCP then
	// presumes a tool that is not read-only may be destructive.
	ReadOnly    bool      `json:"readOnly"`
	Destructive *bool     `json:"destructive,omitempty"`
	Arguments   []ToolArg `json:"arguments"`
}

// ToolArg is one property of a tool's input schema.
type ToolArg struct {
	Name        string `json:"name"`
	Type        string `json:"type,omitempty"`
	Required    bool   `json:"required"`
	Description string `json:"description,omitempty"`
}

// Writes reports whether the tool may change something: not annotated
// read-only. The TUI marks such tools before the server's confirm gate does.
func (t Tool) Writes() bool { return !t.ReadOnly }

// WriteTools turns a tool list into the predicate the TUI needs; tools the
// list does not name are not marked.
func WriteTools(tools []Tool) func(tool string) bool {
	writes := make(map[string]bool, len(tools))
	for _, t := range tools {
		writes[t.Name] = t.Writes()
	}
	return func(tool string) bool { return writes[tool] }
}

// MethodToolsList is the MCP method behind vq tools, and the tool name of
// the answers made from it.
const MethodToolsList = "tools/list"

// ToolList is the data of ToolListResponse.
type ToolList struct {
	Endpoint string `json:"endpoint"`
	Tools    []Tool `json:"tools"`
}

// ToolListResponse is a tool list as scripts get every answer: one
// ToolResponse, {"endpoint", "tools"} in its data.
func ToolListResponse(endpoint string, tools []Tool) *ToolResponse {
	if tools == nil {
		tools = []Tool{}
	}
	data, _ := json.Marshal(ToolList{Endpoint: endpoint, Tools: tools}) // plain structs: cannot fail
	return &ToolResponse{
		OK: true, Tool: MethodToolsList, Summary: fmt.Sprintf("%d tools at %s", len(tools), endpoint),
		Data: data, Warnings: []string{}, NextActions: []NextAction{},
	}
}

// ListTools asks the server for its tools (MCP tools/list, every page). It
// always speaks MCP, at MCPEndpoint, whatever the transport: tools/list has
// no invoke counterpart. A failure comes back as a client-made
// ToolResponse (tool "tools/list") so it renders and exits like any other;
// err is non-nil only when ctx ended.
func (c *Client) ListTools(ctx context.Context) ([]Tool, *ToolResponse, error) {
	const method = MethodToolsList
	var tools []Tool
	var failure *ToolResponse
	_, err := c.withRetries(ctx, method, func() *ToolResponse {
		rec := &httpRecord{}
		rctx := context.WithValue(ctx, httpRecordKey{}, rec)
		tools, failure = nil, nil
		err := c.withSession(rctx, func(s *mcp.ClientSession) error {
			for t, err := range s.Tools(rctx, nil) {
				if err != nil {
					return err
				}
				tools = append(tools, toolFromMCP(t))
			}
			return nil
		})
		if err != nil {
			failure = c.mcpFailure(method, rec, err)
			return failure
		}
		return &ToolResponse{OK: true, Tool: method}
	})
	if err != nil {
		return nil, failure, err
	}
	return tools, failure, nil
}

func toolFromMCP(t *mcp.Tool) Tool {
	out := Tool{Name: t.Name, Title: t.Title, Description: t.Description, Arguments: []ToolArg{}}
	if a := t.Annotations; a != nil {
		out.ReadOnly = a.ReadOnlyHint
		out.Destructive = a.DestructiveHint
		if out.Title == "" {
			out.Title = a.Title
		}
	}
	var schema struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if b, err := json.Marshal(t.InputSchema); err == nil {
		_ = json.Unmarshal(b, &schema)
	}
	required := map[string]bool{}
	for _, name := range schema.Required {
		required[name] = true
	}
	for name, p := range schema.Properties {
		out.Arguments = append(out.Arguments, ToolArg{Name: name, Type: schemaType(p.Type), Required: required[name], Description: p.Description})
	}
	// Required arguments first, then by name: the order a person reads a
	// usage line in.
	slices.SortFunc(out.Arguments, func(x, y ToolArg) int {
		if x.Required != y.Required {
			if x.Required {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Name, y.Name)
	})
	return out
}

// schemaType renders a JSON Schema type, which may be a list
// (["string","null"]).
func schemaType(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, p := range t {
			if s, ok := p.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "|")
	}
	return ""
}
