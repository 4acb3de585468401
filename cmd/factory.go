package cmd

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui"
)

// Factory holds the dependencies every command may need, made lazily:
// the streams, the environment, the global flags it resolves settings from,
// the server's client and the browser opener. It holds no
// behaviour of a call: that is the Pipeline's.
type Factory struct {
	IO     *IOStreams
	Getenv func(string) string
	// OpenURL opens a link in the user's browser (ui.OpenURL when nil).
	OpenURL func(string) error

	Global GlobalOptions

	// clients are the API clients made by Client, closed (their MCP
	// sessions ended) when the command is done.
	clients []*api.Client
}

// NewFactory is the factory of the real process.
func NewFactory() *Factory {
	return &Factory{IO: SystemIO(), Getenv: os.Getenv, OpenURL: ui.OpenURL}
}

// Settings are the global options resolved flag > environment > config file.
type Settings struct {
	BaseURL     string
	APIKey      string
	KeySource   string
	Project     string
	Environment string
	Transport   string
	Endpoint    string
	ConfigPath  string
	// OAuth is the token vq auth login --oauth stored for the MCP endpoint,
	// nil when there is none.
	OAuth *api.OAuthToken
}

// MCPEndpoint is the MCP endpoint the settings name: --endpoint, else the
// base URL's /api/mcp.
func (s Settings) MCPEndpoint() string {
	if s.Endpoint != "" {
		return s.Endpoint
	}
	if s.BaseURL == "" {
		return ""
	}
	return s.BaseURL + api.MCPPath
}

// hasCredential reports whether a call may be sent: with an API key, an
// OAuth token over MCP, or to an explicit --endpoint, where a general MCP
// server may need nothing (and otherwise answers 401 with its sign-in).
func (s Settings) hasCredential() bool {
	return s.APIKey != "" || (s.Transport == api.TransportMCP && (s.OAuth != nil || s.Endpoint != ""))
}

// Credentials is the store of API keys this process uses.
func (f *Factory) Credentials() (api.CredentialStore, error) {
	path := f.Getenv("VQ_CONFIG")
	if path == "" {
		p, err := api.DefaultConfigPath()
		if err != nil {
			return api.CredentialStore{}, err
		}
		path = p
	}
	return api.CredentialStore{ConfigPath: path, UseKeyring: f.Getenv("VQ_NO_KEYRING") == ""}, nil
}

// Settings resolves the global settings. It reads the config file and, only
// when VQ_API_KEY is unset, the keyring, which may be slow or locked: the
// lookup ends with ctx.
func (f *Factory) Settings(ctx context.Context) (Settings, error) {
	store, err := f.Credentials()
	if err != nil {
		return Settings{}, err
	}
	cfg, err := api.LoadConfig(store.ConfigPath)
	if err != nil {
		return Settings{}, err
	}
	pick := func(flag, env, file string) string {
		if flag != "" {
			return flag
		}
		if v := f.Getenv(env); v != "" {
			return v
		}
		return file
	}
	g := f.Global
	s := Settings{
		BaseURL:     strings.TrimRight(pick(g.BaseURL, "VQ_BASE_URL", cfg.BaseURL), "/"),
		Project:     pick(g.Project, "VQ_PROJECT", cfg.Project),
		Environment: pick(g.Environment, "VQ_ENVIRONMENT", cfg.Environment),
		Transport:   pick(g.Transport, "VQ_TRANSPORT", cfg.Transport),
		Endpoint:    pick(g.Endpoint, "VQ_ENDPOINT", cfg.Endpoint),
		ConfigPath:  store.ConfigPath,
	}
	s.Endpoint = strings.TrimRight(s.Endpoint, "/")
	if s.Endpoint != "" && s.Transport == "" {
		s.Transport = api.TransportMCP
	}
	if s.APIKey = f.Getenv("VQ_API_KEY"); s.APIKey != "" {
		s.KeySource = api.SourceEnv
	} else if s.BaseURL != "" {
		if s.APIKey, s.KeySource, err = store.Lookup(ctx, s.BaseURL); err != nil {
			return s, err
		}
	}
	if endpoint := s.MCPEndpoint(); endpoint != "" {
		tok, found, err := store.LookupOAuth(ctx, endpoint)
		if err != nil {
			return s, err
		}
		if found {
			s.OAuth = &tok
		}
	}
	return s, nil
}

// Client builds the API client for the resolved settings. A missing server
// is a usage error; a missing key is reported by the caller as the
// unauthorized response, before anything is sent.
func (f *Factory) Client(ctx context.Context) (*api.Client, Settings, error) {
	s, err := f.Settings(ctx)
	if err != nil {
		return nil, s, err
	}
	if err := checkTransport(s); err != nil {
		return nil, s, err
	}
	if s.BaseURL == "" && s.Endpoint == "" {
		return nil, s, &exitcode.UsageError{
			Reason: "no VisualQ server configured",
			Hint:   "set --base-url or VQ_BASE_URL (or --endpoint for an MCP server), run vq auth login, or try vq demo",
		}
	}
	for flag, u := range map[string]string{"--base-url": s.BaseURL, "--endpoint": s.Endpoint} {
		if err := checkServerURL(flag, u); u != "" && err != nil {
			return nil, s, err
		}
	}
	if err := checkStdio(s); err != nil {
		return nil, s, err
	}
	opts := api.Options{
		BaseURL:     s.BaseURL,
		APIKey:      s.APIKey,
		Project:     s.Project,
		Environment: s.Environment,
		Timeout:     f.Global.Timeout,
		CallBound:   f.Global.timeoutGiven,
		NoRetry:     f.Global.NoRetry,
		UserAgent:   "vq/" + versionString(),
		Headers:     f.Global.MCP.headers,
		LogLevel:    f.Global.MCP.LogLevel,
		Elicit:      f.elicit,
	}
	// In the TUI a stderr line would tear the frame; the screen shows the
	// outcome (a rate_limit screen shows its wait) instead.
	if !f.terminalUI() {
		opts.Notify = func(msg string) { fmt.Fprintln(f.IO.ErrOut, "vq: "+textsafe.SanitizeLine(msg)) }
	}
	if f.Global.Debug {
		opts.Debug, opts.StdioStderr = f.IO.ErrOut, f.IO.ErrOut
	}
	f.mcpOptions(&opts, &s)
	client := api.New(opts)
	f.clients = append(f.clients, client)
	return client, s, nil
}

// mcpOptions sets the transport and picks the MCP credential. A VisualQ
// API key (stored or VQ_API_KEY) belongs to its server, the base URL's: it
// is never sent to an --endpoint elsewhere, a stdio server included. To
// send a credential to such a server, the user names it: --header
// 'Authorization: Bearer ...'. Without a key the OAuth token stored for
// the endpoint is used, refreshed when it expires.
func (f *Factory) mcpOptions(opts *api.Options, s *Settings) {
	opts.Transport, opts.Endpoint = s.Transport, s.Endpoint
	if s.Transport != api.TransportMCP {
		return
	}
	if s.APIKey != "" && !sameHost(s.MCPEndpoint(), s.BaseURL) {
		opts.APIKey, s.APIKey, s.KeySource = "", "", ""
	}
	if opts.APIKey == "" && s.OAuth != nil {
		store, err := f.Credentials()
		if err == nil {
			opts.OAuth = &api.StoredOAuth{Token: *s.OAuth, Store: store}
		}
	}
}

// terminalUI reports whether a person is at a terminal (stdin and stdout)
// who did not ask for plain output: where the TUI may open.
func (f *Factory) terminalUI() bool {
	return f.IO.InTTY && f.IO.OutTTY && f.Getenv("TERM") != "dumb" && !f.Global.NoTUI
}

// openURL opens a link with the factory's opener.
func (f *Factory) openURL(link string) error {
	if f.OpenURL == nil {
		return ui.OpenURL(link)
	}
	return f.OpenURL(link)
}

// closeClients ends the MCP sessions of every client this process made.
func (f *Factory) closeClients() {
	for _, c := range f.clients {
		_ = c.Close()
	}
	f.clients = nil
}

// checkTransport refuses an unknown --transport, and --endpoint with
// --transport invoke: an endpoint is an MCP server's.
func checkTransport(s Settings) error {
	switch s.Transport {
	case "", api.TransportInvoke, api.TransportMCP:
	default:
		return &exitcode.UsageError{Reason: fmt.Sprintf("unknown --transport %q", s.Transport), Hint: "use invoke or mcp"}
	}
	if s.Endpoint != "" && s.Transport == api.TransportInvoke {
		return &exitcode.UsageError{Reason: "--endpoint names an MCP endpoint; it cannot be used with --transport invoke", Hint: "drop --transport, or use --transport mcp"}
	}
	return nil
}

func sameHost(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && strings.EqualFold(ua.Host, ub.Host) && ua.Scheme == ub.Scheme
}

// checkServerURL refuses a server URL (given by flag, or its environment
// variable) that is not http(s), and plain http to a host other than
// loopback, where the key would cross the network in clear.
func checkServerURL(flag, raw string) error {
	if flag == "--endpoint" && strings.HasPrefix(raw, api.StdioScheme) {
		return nil // a command, checked by checkStdio
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &exitcode.UsageError{Reason: fmt.Sprintf("%s %q is not an http(s) URL", flag, raw), Hint: "example: " + flag + " https://visualq.example.com"}
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return &exitcode.UsageError{
			Reason: fmt.Sprintf("refusing to send the API key over plain http to %s", u.Host),
			Hint:   "use an https:// " + flag + " (plain http is allowed only for localhost)",
		}
	}
	return nil
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// checkStdio refuses a stdio: endpoint that names no command (or quotes
// it wrongly).
func checkStdio(s Settings) error {
	if !strings.HasPrefix(s.Endpoint, api.StdioScheme) {
		return nil
	}
	if err := api.CheckStdioEndpoint(s.Endpoint); err != nil {
		return &exitcode.UsageError{Reason: fmt.Sprintf("--endpoint %q %s", s.Endpoint, err), Hint: "example: --endpoint 'stdio:npx -y @modelcontextprotocol/server-everything'"}
	}
	return nil
}
