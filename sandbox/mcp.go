package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

// ReadinessProject is the sandbox project whose first import is still being
// analysed: tools that change it are refused with the readiness lock
// (api.CodeProjectNotReady) until the analysis ends. Each refused call
// stands for a stretch of analysis, so the lock lifts deterministically:
// "3 of 5", then "4 of 5", then the call goes through.
const ReadinessProject = "fresh-import"

const (
	readinessFirst = 3
	readinessTotal = 5
)

// mcpTool is what tools/list says about a tool.
type mcpTool struct {
	title, description string
	destructive        bool
	args               []mcpArg
}

type mcpArg struct {
	name, typ, description string
	required               bool
}

var argToken = mcpArg{name: api.ArgToken, typ: "string", description: "the token of work this tool started: answers its progress, then its result"}

// mcpEndpoint serves /api/mcp with the SDK's server. Every tool call goes
// through the sandbox's own invoke path, so answers, gates and rate limits
// are those of the invoke endpoint; the ToolResponse rides in
// structuredContent.
type mcpEndpoint struct {
	s       *Server
	auth    *authServer
	handler http.Handler
	base    atomic.Value // string: scheme://host of the latest request

	mu        sync.Mutex
	readiness int // calls the readiness lock has refused so far
}

// mountMCP adds the MCP endpoint, its protected-resource metadata and the
// authorization server to mux.
func (s *Server) mountMCP(mux *http.ServeMux) {
	e := &mcpEndpoint{s: s, auth: newAuthServer()}
	server := mcp.NewServer(&mcp.Implementation{Name: "visualq-sandbox", Version: "1"}, nil)
	for _, name := range toolNames() {
		server.AddTool(e.toolDef(name), e.handle(name))
	}
	e.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	mux.Handle(api.MCPPath, e)
	e.auth.mount(mux)
}

func (e *mcpEndpoint) toolDef(name string) *mcp.Tool {
	t := tools[name]
	info := t.about
	props := map[string]any{}
	required := []string{}
	for _, a := range info.args {
		p := map[string]any{"type": a.typ}
		if a.description != "" {
			p["description"] = a.description
		}
		props[a.name] = p
		if a.required {
			required = append(required, a.name)
		}
	}
	return &mcp.Tool{
		Name:        name,
		Title:       info.title,
		Description: info.description,
		// Extra KEY=VALUE pairs pass through, as on the invoke endpoint.
		InputSchema: map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": true},
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: !t.write && !t.starts, DestructiveHint: &info.destructive},
	}
}

func (e *mcpEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	base := baseURL(r)
	e.base.Store(base)
	if _, ok := e.keyFor(r.Header); !ok {
		challenge := fmt.Sprintf(`Bearer resource_metadata="%s"`, base+prmPath+api.MCPPath)
		if r.Header.Get("Authorization") != "" {
			challenge += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write(mustEncode(map[string]any{"error": map[string]string{ //nolint:errcheck // client gone
			"code": api.CodeUnauthorized, "message": "sign in: an API key (sandbox keys: " + keyTokens() + ") or an OAuth token (vq auth login --oauth)"}}))
		return
	}
	e.handler.ServeHTTP(w, r)
}

// keyFor is the demo key a request acts as: its bearer API key, as the
// invoke endpoint takes it, or the admin key for a live OAuth access token.
func (e *mcpEndpoint) keyFor(h http.Header) (Key, bool) {
	if k, _, ok := authenticate(h); ok {
		return k, true
	}
	if e.auth.validAccess(bearerToken(h)) {
		return demoKeys[slices.IndexFunc(demoKeys, func(k Key) bool { return k.Token == KeyAdmin })], true
	}
	return Key{}, false
}

func (e *mcpEndpoint) handle(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a := args{}
		if raw := req.Params.Arguments; len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &a); err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "arguments must be a JSON object: " + err.Error()}
			}
		}
		key, _ := e.keyFor(req.Extra.Header)
		project, _ := req.Params.Meta[api.MetaProject].(string)
		environment, _ := req.Params.Meta[api.MetaEnvironment].(string)
		if project == ReadinessProject {
			if tools[name].write {
				if refusal := e.readinessLock(name); refusal != nil {
					return result(refusal), nil
				}
			}
			// The seeded data serves every project; only the lock is
			// particular to this one.
			project, environment = "", ""
		}
		dispatch := func(tool string, a args) *api.ToolResponse {
			return e.dispatch(key, tool, a, project, environment)
		}
		if token, ok := a[api.ArgToken].(string); ok && token != "" {
			return result(e.followToken(ctx, req, name, token, dispatch)), nil
		}
		resp := dispatch(name, a)
		if jobID, ok := api.AcceptedJob(resp); ok {
			started(resp, name, a, jobID)
		}
		return result(resp), nil
	}
}

// dispatch runs one call through the invoke endpoint's own path.
func (e *mcpEndpoint) dispatch(key Key, tool string, a args, project, environment string) *api.ToolResponse {
	base, _ := e.base.Load().(string)
	resp, err := api.DecodeToolResponse(e.s.call(key, invokeRequest{Tool: tool, Args: a, Project: project, Environment: environment}, base).body)
	if err != nil {
		return refusalResponse(tool, err)
	}
	return resp
}

// started turns an async tool's first answer (a job id) into the token
// pattern's: status started, the token, and the follow-up that is the same
// call plus the token.
func started(resp *api.ToolResponse, tool string, a args, token string) {
	resp.Data = mustEncode(api.LongRunning{Status: api.LongRunningStarted, Token: token})
	resp.Summary = strings.TrimSuffix(resp.Summary, ".") + ": started; call " + tool + " again with its token for progress and the result."
	resp.NextActions = []api.NextAction{action("Check progress", tool, api.Call{Tool: tool, Args: a}.WithToken(token).Args)}
}

// followToken answers a call that carries a token: running with progress
// (also sent as a progress notification when the client asked for them),
// then the work's final answer.
func (e *mcpEndpoint) followToken(ctx context.Context, req *mcp.CallToolRequest, tool, token string, dispatch func(string, args) *api.ToolResponse) *api.ToolResponse {
	resp := dispatch("get_job_status", args{"jobId": token})
	resp.Tool = tool
	status, ok := api.ParseJobStatus(resp)
	if !ok {
		return resp
	}
	if !status.Ended() {
		if p := status.Progress; p != nil && req.Params.GetProgressToken() != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: req.Params.GetProgressToken(), Progress: p.Current, Total: p.Total, Message: p.Message})
		}
		resp.Data = mustEncode(api.LongRunning{Status: api.LongRunningRunning, Token: token, Progress: status.Progress})
		resp.NextActions = []api.NextAction{}
		return resp
	}
	resp.Data = status.Result // null when it has none: result fills it
	return resp
}

// readinessLock refuses a write while ReadinessProject's first import is
// analysed, or answers nil once the analysis is over.
func (e *mcpEndpoint) readinessLock(tool string) *api.ToolResponse {
	e.mu.Lock()
	analysed := readinessFirst + e.readiness
	if analysed < readinessTotal {
		e.readiness++
	}
	e.mu.Unlock()
	if analysed >= readinessTotal {
		return nil
	}
	var readOnly []string
	for _, name := range toolNames() {
		if !tools[name].write {
			readOnly = append(readOnly, name)
		}
	}
	msg := fmt.Sprintf("Project %s is still analysing its first import: %d of %d sources analysed. "+
		"%s changes the project, so it waits until the analysis is done; read-only tools work meanwhile (%s). "+
		"Do not retry in a loop or use another tool to get around this: wait, then call again.",
		ReadinessProject, analysed, readinessTotal, tool, strings.Join(readOnly, ", "))
	resp := refusalResponse(tool, &refusal{code: api.CodeProjectNotReady, message: msg, recoverable: true})
	resp.Data = mustEncode(map[string]any{"analysed": analysed, "total": readinessTotal, "readOnlyTools": readOnly})
	return resp
}

// result wraps a ToolResponse as the hosted endpoint answers it: the whole
// response as structuredContent, isError = !ok, the summary as text.
func result(resp *api.ToolResponse) *mcp.CallToolResult {
	fillContract(resp)
	text := resp.Summary
	if !resp.OK && resp.ErrorMessage() != "" {
		text = resp.ErrorMessage()
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(mustEncode(resp)),
		IsError:           !resp.OK,
	}
}
