// Package mcpserve holds vq mcp serve: VisualQ's tools served to IDE
// agents over MCP on stdio or streamable HTTP, each call through the one
// pipeline. The root adds it under vq mcp.
//
// It may import cmd/cmdutil, cmd/iostreams, api and the leaves; never cmd
// nor another command group.
package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/mcpstdio"
	"github.com/visualq/vq/internal/textsafe"
	"golang.org/x/sync/semaphore"
)

// ServeOptions are the inputs of vq mcp serve.
type ServeOptions struct {
	ReadOnly  bool          // ReadOnly offers only the tools api.ReadOnlyTool admits.
	Interval  time.Duration // Interval polls a job followed for a progress token; zero is adaptive.
	NoImages  bool          // NoImages leaves the diff images an answer links out of its result.
	HTTP      string        // HTTP serves streamable HTTP on this address instead of stdio.
	TokenFile string        // TokenFile holds the bearer token HTTP requests must carry.
}

// NewCmdServe serves the tools on stdio; runF replaces the run in flag tests.
func NewCmdServe(f *cmdutil.Factory, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{}
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve VisualQ's tools to IDE agents over MCP, on stdio or HTTP",
		Long: `Serve VisualQ's tools over MCP on stdin and stdout, for an IDE agent
(Claude Code, Claude Desktop, Cursor, VS Code, ...) that starts vq as its
MCP server.

The tools are those of the server's hosted MCP tool list when it has one,
else vq's own tool registry, with their arguments and read-only or
destructive hints. Each tools/call goes through the pipeline vq invoke
uses: rate limits are waited out, an unexpected failure is retried once
where that is safe (a read, or a request that never reached the server),
and the answer is the ToolResponse (structuredContent; the summary,
warnings and next actions as text, then the same JSON; isError when it is
not ok). At most 8 requests to the server are in flight at once; the other
calls wait their turn, and a call waits for its turn (behind those, or
behind rate-limited calls) at most its --timeout. The diff images an
answer links on the VisualQ server come with it as PNG images, at most
1568 px on the longer side (--no-images leaves them out). The prompts
triage_run, review_diff and prove_ticket start VisualQ workflows, and
completion/complete completes their run ids, scenario labels and
viewports from the answers served.

vq never consents for the agent: a write tool runs only when the agent
sends confirm: true itself, and a confirm_required answer comes back as it
is, for the agent to ask its user; a confirm a server put in a next action
is taken out. A project still analysing its first import refuses writes
("3 of 5 sources analysed"); the refusal is returned, never retried. An
async tool's job is followed to its end, with progress notifications, when
the call carries a progress token; without one the queued answer is
returned as it is. A cancelled call is not answered; every request read
before stdin closes is.

--http ADDR serves the same over MCP's streamable HTTP transport at
http://ADDR/mcp, to several agents at once: each has its own session, calls
and cancellations, and a session gets at most half of the 8 requests in
flight. ADDR is on loopback (a bare :PORT is 127.0.0.1's); any other address
is refused unless --token-file names a file holding a token, which every
request must then carry as Authorization: Bearer TOKEN (else 401). A request
from a web page of another host (its Origin) is refused 403. It prints
where it listens; Ctrl-C or SIGTERM ends the calls in flight, each cancelled
at the server, and stops it.

The server, credential, project and environment are vq's own settings
(flags, --profile, VQ_BASE_URL, VQ_API_KEY and the other VQ_* variables,
the config file). Logs and --debug traces go to stderr; stdout carries only
MCP (with --http, the line saying where it listens).

The examples serve the configured server, only its tools that read, agents
over HTTP on this machine, and the sandbox (vq sandbox); the last lists the
sandbox's tools as an MCP client sees them, with the MCP Inspector's CLI
(Node 22 or later).`,
		Example: `  vq mcp serve
  vq mcp serve --read-only
  vq mcp serve --http 127.0.0.1:8788
  VQ_BASE_URL=http://127.0.0.1:8787 VQ_API_KEY=vqs_admin vq mcp serve
  npx @modelcontextprotocol/inspector --cli -e VQ_BASE_URL=http://127.0.0.1:8787 -e VQ_API_KEY=vqs_admin vq mcp serve --method tools/list`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if c.Flags().Changed("interval") && opts.Interval <= 0 {
				return exitcode.Usagef("--interval must be positive, got %s", opts.Interval)
			}
			if err := opts.checkHTTP(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return serveRun(c.Context(), f, opts)
		},
	}
	fs := c.Flags()
	fs.BoolVar(&opts.ReadOnly, "read-only", false, "offer only the tools that change nothing (by vq's registry, else the server's readOnlyHint): the others are neither listed nor callable")
	fs.DurationVar(&opts.Interval, "interval", 0, "poll interval of a job followed for a progress token (default: adaptive, 1s growing to 10s)")
	fs.BoolVar(&opts.NoImages, "no-images", false, "leave the diff images an answer links out of its tool result")
	fs.StringVar(&opts.HTTP, "http", "", "serve MCP's streamable HTTP transport at http://ADDR/mcp instead of stdio, to many agents (host defaults to 127.0.0.1)")
	fs.StringVar(&opts.TokenFile, "token-file", "", "with --http, serve only requests carrying Authorization: Bearer and this file's token (needed beyond loopback)")
	// Consent is the agent's to give, call by call (confirm: true).
	return cmdutil.CallsServer(c, &f.Global)
}

func serveRun(ctx context.Context, f *cmdutil.Factory, opts *ServeOptions) error {
	token, err := opts.token()
	if err != nil {
		return err
	}
	s, err := startAgentServer(ctx, f, opts)
	if err != nil {
		return err
	}
	defer s.close()
	if opts.HTTP != "" {
		return s.serveHTTP(ctx, opts.HTTP, token)
	}
	in, ok := f.IOStreams.In.(io.ReadCloser)
	if !ok {
		in = io.NopCloser(f.IOStreams.In)
	}
	// Ends when the client closes the stream, once every request read is answered.
	return s.server.Run(ctx, &mcpstdio.Transport{In: in, Out: f.IOStreams.RawOut()})
}

// serveInstructions tell the agent what the tools' answers mean for it.
const serveInstructions = `VisualQ tools (visual-regression and functional tests), served by vq.
Every answer is a ToolResponse in structuredContent: ok, summary, data, warnings, nextActions (follow-up calls), error {code, message}, recoverable.
Write tools change a project and need confirm: true: ask your user first; a confirm_required answer means nothing was written.
Async tools answer at once with a job (jobId) or started work (a token): send a progress token with the call to get the final result in the same call, else follow the answer's nextActions.
A project_not_ready refusal ("3 of 5 sources analysed") must not be retried in a loop: wait, then call again.
An answer that links diff images on the VisualQ server carries them as images after its text: look at them before you judge a change.`

// agentServer is vq mcp serve's MCP server, each call sent through the pipeline.
type agentServer struct {
	server   *mcp.Server
	pipeline *cmdutil.Pipeline
	factory  *cmdutil.Factory // the pipeline's
	client   *mcpclient.Client
	settings cmdutil.Settings
	opts     *ServeOptions
	print    format.Printer
	backend  *semaphore.Weighted // bounds the requests in flight; the others wait in order
	timeout  time.Duration       // each request's; a call's waits for its turn count against it
	decoding sync.Mutex          // one image decoded at a time
	recall   recall              // what completion offers
	running  context.Context     // the command's: its end ends every call
	shares   sessionShares       // over HTTP, each session's part of the requests in flight

	ready    chan struct{}      // closed once the tools are registered; tools/list and tools/call wait
	stopLoad context.CancelFunc // stopLoad ends the loading of the tools; loaded is closed then.
	loaded   chan struct{}
}

// startAgentServer connects the pipeline and starts loading the tools. stdin
// and stdout carry MCP: the terminal is the agent's, where nobody is asked and
// vq consents to nothing; notes and --debug traces go to stderr.
func startAgentServer(ctx context.Context, f *cmdutil.Factory, opts *ServeOptions) (*agentServer, error) {
	f.SetTerminal(iostreams.NewAgentTerminal(f.IOStreams.ErrOut, f.Getenv))
	p := cmdutil.NewPipeline(f)
	p.Wait = cmdutil.WaitOptions{Interval: opts.Interval, Timeout: cmdutil.DefaultWatchTimeout}
	client, settings, err := p.Connect(ctx)
	if err != nil {
		return nil, err
	}
	p.Policies() // decided once, before the calls come concurrently
	s := &agentServer{
		pipeline: p, factory: f, client: client, settings: settings, opts: opts, print: f.Terminal().Print,
		backend: semaphore.NewWeighted(maxBackendCalls), timeout: api.Options{Timeout: f.Global.Timeout}.WithDefaults().Timeout,
		ready: make(chan struct{}), loaded: make(chan struct{}), running: ctx,
	}
	p.Admit = s.admit
	serverOpts := &mcp.ServerOptions{
		Instructions: serveInstructions,
		// Fixed for the process: no list_changed, no resources, no logging
		// (logs go to stderr); the SDK declares completions for the handler.
		Capabilities:      &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Prompts: &mcp.PromptCapabilities{}},
		CompletionHandler: s.complete,
	}
	if f.Global.Debug {
		serverOpts.Logger = slog.New(slog.NewTextHandler(f.IOStreams.ErrOut, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	version, _, _ := strings.Cut(f.AppVersion, " ") // the release, without the commit and date
	s.server = mcp.NewServer(&mcp.Implementation{Name: "vq", Title: "VisualQ", Version: version}, serverOpts)
	s.server.AddReceivingMiddleware(s.undeclared, s.awaitTools)
	s.addPrompts()
	var loadCtx context.Context
	loadCtx, s.stopLoad = context.WithCancel(ctx)
	go func() {
		defer close(s.loaded)
		s.load(loadCtx)
	}()
	return s, nil
}

// maxBackendCalls bounds the requests in flight to the server (calls, polls,
// image downloads): a burst waits its turn rather than opening a connection each.
const maxBackendCalls = 8

// admit waits for a turn to send a request (Pipeline.Admit), within the call's
// turn deadline: one of its session's share over HTTP, then one of the process's.
func (s *agentServer) admit(ctx context.Context) (func(), error) {
	share, _ := ctx.Value(shareKey{}).(*semaphore.Weighted)
	behind := fmt.Sprintf("the %d requests in flight", maxBackendCalls)
	err := api.AwaitTurn(ctx, behind, func(ctx context.Context) error {
		if share == nil {
			return s.backend.Acquire(ctx, 1)
		}
		if err := share.Acquire(ctx, 1); err != nil {
			return err
		}
		if err := s.backend.Acquire(ctx, 1); err != nil {
			share.Release(1)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return func() {
		s.backend.Release(1)
		if share != nil {
			share.Release(1)
		}
	}, nil
}

// undeclared refuses as unknown what the SDK answers whatever the capabilities
// say (resources/*, logging/setLevel).
func (s *agentServer) undeclared(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "resources/") || method == "logging/setLevel" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("%s: vq mcp serve serves tools, prompts and completions only", method)}
		}
		return next(ctx, method, req)
	}
}

func (s *agentServer) close() {
	s.stopLoad()
	<-s.loaded
	s.factory.CloseClients()
}

// awaitTools holds tools/list and tools/call until the tools are ready.
func (s *agentServer) awaitTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/list" || method == "tools/call" {
			select {
			case <-s.ready:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return next(ctx, method, req)
	}
}

// load registers the tools to offer (with --read-only, only read-only ones); the
// SDK refuses a tool not registered before anything is sent.
func (s *agentServer) load(ctx context.Context) {
	defer close(s.ready)
	tools, source := s.offered(ctx)
	if ctx.Err() != nil {
		return
	}
	n := 0
	for _, t := range tools {
		if s.opts.ReadOnly && !t.Annotations.ReadOnlyHint {
			continue
		}
		s.server.AddTool(t, s.call)
		n++
	}
	only := ""
	if s.opts.ReadOnly {
		only = " (read-only)"
	}
	s.logf("serving %d tools%s from %s", n, only, source)
}

// offered are the tools of the server's hosted tool list when it has one,
// else those of vq's registry, and where they came from.
func (s *agentServer) offered(ctx context.Context) ([]*mcp.Tool, string) {
	if !s.settings.HasCredential() {
		s.logf("no API key: every call answers unauthorized until VQ_API_KEY is set or vq auth login has run")
		return registryTools(), "vq's tool registry"
	}
	endpoint := s.client.MCPEndpoint()
	hosted, failure, err := s.client.ListTools(ctx)
	switch {
	case err != nil:
		return nil, ""
	case failure != nil:
		s.logf("%s has no tool list for vq (%s): serving vq's own", endpoint, textsafe.SanitizeLine(failure.ErrorMessage()))
	case len(hosted) == 0:
		s.logf("%s lists no tools: serving vq's own", endpoint)
	default:
		return s.hostedTools(hosted), endpoint
	}
	return registryTools(), "vq's tool registry"
}

func (s *agentServer) logf(msg string, args ...any) {
	s.print.Note("vq mcp serve: " + fmt.Sprintf(msg, args...))
}

// registryTools are the registry's non-CI tools: a read is read-only, a write
// destructive, and a tool that starts work neither, so it is not resent as a read.
func registryTools() []*mcp.Tool {
	var out []*mcp.Tool
	for _, t := range api.KnownTools() {
		if t.CI {
			continue
		}
		destructive := t.Write
		a := &mcp.ToolAnnotations{ReadOnlyHint: t.ReadOnly}
		if !t.ReadOnly {
			a.DestructiveHint = &destructive
		}
		out = append(out, &mcp.Tool{Name: t.Name, Description: t.Summary, InputSchema: inputSchema(t.InputArgs()), Annotations: a})
	}
	return out
}

// hostedTools are a server's tools offered again. Schemas are rebuilt from what
// vq reads (api.ToolArg.Schema), so nothing else a server puts there reaches the
// agent; read-only is vq's rule (api.ReadOnlyTool); text is sanitized. Names go
// back to the server, so a tool with a name that is not plain is not served and
// a value or default that is not plain is left out.
func (s *agentServer) hostedTools(tools []api.Tool) []*mcp.Tool {
	out := make([]*mcp.Tool, 0, len(tools))
	for _, t := range tools {
		if why := unservable(t); why != "" {
			s.logf("tool %q not served: %s", textsafe.SanitizeLine(t.Name), why)
			continue
		}
		args := make([]api.ToolArg, len(t.Arguments))
		for i, a := range t.Arguments {
			args[i] = servableArg(a)
		}
		out = append(out, &mcp.Tool{
			Name: t.Name, Title: textsafe.SanitizeLine(t.Title), Description: textsafe.Sanitize(t.Description),
			InputSchema: inputSchema(args),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: api.ReadOnlyTool(t.Name, t.ReadOnly), DestructiveHint: t.Destructive},
		})
	}
	return out
}

// unservable says why a tool cannot be offered under its names: MCP's
// rule for a tool name, a plain name for each argument.
func unservable(t api.Tool) string {
	if !api.ValidToolName(t.Name) {
		return "not a valid tool name"
	}
	for _, a := range t.Arguments {
		if !textsafe.Plain(a.Name) {
			return fmt.Sprintf("its argument %q is no name", textsafe.SanitizeLine(a.Name))
		}
	}
	return ""
}

// servableArg keeps an argument's type, items, enum and default only where plain.
func servableArg(a api.ToolArg) api.ToolArg {
	if !textsafe.Plain(a.Type) {
		a.Type = ""
	}
	if !textsafe.Plain(a.Items) {
		a.Items = ""
	}
	a.Enum = slices.DeleteFunc(slices.Clone(a.Enum), func(v string) bool { return !plainJSON(v) })
	if !plainJSON(a.Default) {
		a.Default = ""
	}
	return a
}

// plainJSON reports JSON text whose strings are all plain names (or empty).
func plainJSON(text string) bool {
	var v any
	if text == "" || json.Unmarshal([]byte(text), &v) != nil {
		return true // nothing, or nothing Schema serves
	}
	return plainValue(v)
}

func plainValue(v any) bool {
	switch v := v.(type) {
	case string:
		return v == "" || textsafe.Plain(v)
	case []any:
		return !slices.ContainsFunc(v, func(x any) bool { return !plainValue(x) })
	case map[string]any:
		for k, x := range v {
			if !textsafe.Plain(k) || !plainValue(x) {
				return false
			}
		}
	}
	return true
}

// inputSchema is the JSON Schema of a tool's arguments; further properties stay
// allowed, as servers take them (KEY=VALUE pairs, a long-running tool's token).
func inputSchema(args []api.ToolArg) map[string]any {
	props := make(map[string]any, len(args))
	var required []string
	for _, a := range args {
		p := a.Schema()
		if a.Description != "" {
			p["description"] = textsafe.Sanitize(a.Description)
		}
		props[a.Name] = p
		if a.Required {
			required = append(required, a.Name)
		}
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	return schema
}

// call sends one tools/call through the pipeline with the agent's arguments as
// they are (no consent of vq's own). Its waits for a turn count against its
// --timeout; with a progress token the job it starts is followed to its end.
func (s *agentServer) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	// Ended with the command (Ctrl-C, SIGTERM), its request cancelled upstream.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.running, cancel)()
	share, leave := s.shares.join(req.Session)
	defer leave()
	ctx = context.WithValue(ctx, shareKey{}, share)
	args, err := callArgs(req.Params.Arguments)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	call := api.Call{Tool: req.Params.Name, Args: args}
	resp, err := s.pipeline.Send(api.WithTurnTimeout(ctx, s.timeout), call)
	if err == nil && req.Params.GetProgressToken() != nil {
		resp, err = s.pipeline.Follow(ctx, call, resp, s.progressNotifier(ctx, req))
	}
	if err != nil {
		// Failures are ToolResponses; this is a cancelled call or vq's own error.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: textsafe.SanitizeLine(err.Error())}
	}
	s.recall.remember(resp)
	return s.toolResult(ctx, resp)
}

// callArgs decodes a call's arguments with numbers kept exact.
func callArgs(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	if err := cmdutil.DecodeJSON(raw, &args); err != nil {
		return nil, fmt.Errorf("arguments must be a JSON object: %v", err)
	}
	return args, nil
}

// progressNotifier turns a followed job's updates into notifications/progress.
// MCP wants progress to grow, so an update that does not is dropped and a job
// without figures counts its changes. Polls and a hosted server's notifications
// arrive at once: the lock keeps them in order.
func (s *agentServer) progressNotifier(ctx context.Context, req *mcp.CallToolRequest) func(api.JobUpdate) {
	token := req.Params.GetProgressToken()
	var mu sync.Mutex
	sent := -1.0
	return func(u api.JobUpdate) {
		switch {
		case u.Final != nil:
			return // the call's answer says it
		case u.Failure != nil:
			s.logf("%s: %s; asking again in %s", textsafe.SanitizeLine(u.JobID), textsafe.SanitizeLine(u.Failure.ErrorMessage()), u.RetryIn)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		progress, total := sent+1, 0.0
		if u.HasProgress {
			progress, total = u.Current, u.Total
		}
		if progress <= sent {
			return
		}
		sent = progress
		message := u.Message
		if message == "" {
			message = u.Status
		}
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: progress, Total: total, Message: textsafe.SanitizeLine(message),
		})
	}
}
