package cmdutil

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/account"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
	"github.com/visualq/vq/ui"
)

// Factory holds the dependencies every command may need, made lazily; a
// call's behaviour is the Pipeline's.
type Factory struct {
	IOStreams  *iostreams.IOStreams
	Getenv     func(string) string
	OpenURL    func(string) error
	AppVersion string // in the User-Agent

	Global GlobalOptions

	// terminal is made on first use, after flags (vq mcp serve sets it first).
	terminal   *iostreams.Terminal
	clients    []*mcpclient.Client // closed by CloseClients
	configSaid configSaid
}

// NewFactory is the factory of the real process.
func NewFactory(appVersion string) *Factory {
	return &Factory{IOStreams: iostreams.System(), Getenv: os.Getenv, OpenURL: ui.OpenURL, AppVersion: appVersion}
}

// Settings are the global options (flag > env > config file) for one server.
type Settings struct {
	BaseURL     string
	Profile     string // BaseURL's entry name in the config file
	PickedBy    string
	APIKey      string
	KeySource   string
	Project     string
	Environment string
	Transport   string
	Endpoint    string
	ConfigPath  string
	OAuth       *account.OAuthToken // stored for the MCP endpoint
	// oauthErr is why the token file was unreadable, for calls that need it.
	oauthErr error
	// For the refusals' words (origin): withheld is the source of a key
	// not sent to an --endpoint on another host.
	keyring, headerAuth bool
	withheld            string
}

// MCPEndpoint is --endpoint, else the base URL's /api/mcp.
func (s Settings) MCPEndpoint() string {
	if s.Endpoint != "" {
		return s.Endpoint
	}
	if s.BaseURL == "" {
		return ""
	}
	return s.BaseURL + api.MCPPath
}

// Home is the origin images are fetched from (api.Client.FetchPublic).
func (s Settings) Home() string { return cmp.Or(s.BaseURL, s.Endpoint) }

// HasCredential reports whether a call may be sent: an API key, an MCP OAuth
// token, or an explicit --endpoint (a general MCP server may need nothing).
func (s Settings) HasCredential() bool {
	return s.APIKey != "" || (s.Transport == api.TransportMCP && (s.OAuth != nil || s.Endpoint != ""))
}

// Terminal is read once from the streams and the display flags.
func (f *Factory) Terminal() *iostreams.Terminal {
	if f.terminal == nil {
		f.terminal = iostreams.NewTerminal(f.IOStreams, f.Getenv, f.Global.NoTUI, f.Global.NoColor, f.Global.NoPager)
		f.terminal.Print.Commands = FrontingLine
	}
	return f.terminal
}

// SetTerminal sets the terminal before any read (vq mcp serve: the agent's).
func (f *Factory) SetTerminal(t *iostreams.Terminal) { f.terminal = t }

// Config is the config file and the key store beside it.
func (f *Factory) Config() ConfigFile {
	return ConfigFile{getenv: f.Getenv, global: &f.Global, warn: func(msg string) { f.Terminal().Print.Warning(msg) }, said: &f.configSaid}
}

// Settings resolves pickServer's server; the keyring (read only without
// VQ_API_KEY) may be slow or locked, so the lookup ends with ctx.
func (f *Factory) Settings(ctx context.Context) (Settings, error) {
	return f.settings(ctx, f.Config().Read)
}

func (f *Factory) settings(ctx context.Context, config func() (account.CredentialStore, account.Config, error)) (Settings, error) {
	store, cfg, err := config()
	if err != nil {
		return Settings{}, err
	}
	base, pickedBy, err := pickServer(f.Global, f.Getenv, cfg)
	if err != nil {
		return Settings{}, err
	}
	s, err := resolveSettings(ctx, f.Global, f.Getenv, store, cfg, base)
	s.PickedBy = pickedBy
	return s, err
}

// SettingsFor is Settings for baseURL.
func (f *Factory) SettingsFor(ctx context.Context, baseURL string) (Settings, error) {
	store, cfg, err := f.Config().Read()
	if err != nil {
		return Settings{}, err
	}
	return resolveSettings(ctx, f.Global, f.Getenv, store, cfg, baseURL)
}

// ConfigFile reads the config file, checking its permissions once a process.
type ConfigFile struct {
	getenv func(string) string
	global *GlobalOptions
	warn   func(string)
	said   *configSaid
}

// configSaid is what the reads have warned about once a process.
type configSaid struct{ checked, skipped bool }

// Store is the store of API keys ($VQ_CONFIG, else the default path).
func (c ConfigFile) Store() (account.CredentialStore, error) {
	path := c.getenv("VQ_CONFIG")
	if path == "" {
		p, err := account.DefaultConfigPath()
		if err != nil {
			return account.CredentialStore{}, err
		}
		path = p
	}
	return account.CredentialStore{ConfigPath: path, UseKeyring: c.getenv("VQ_NO_KEYRING") == ""}, nil
}

// Read loads the config file.
func (c ConfigFile) Read() (account.CredentialStore, account.Config, error) {
	store, err := c.Store()
	if err != nil {
		return store, account.Config{}, err
	}
	if !c.said.checked {
		c.said.checked = true
		for _, warning := range account.ConfigWarnings(store.ConfigPath) {
			c.warn(warning)
		}
	}
	cfg, err := store.Load()
	return store, cfg, err
}

// forCall is Read, but skips an unusable file with a warning when flags and env
// give server and key: a broken file breaks only commands that need it.
func (c ConfigFile) forCall() (account.CredentialStore, account.Config, error) {
	store, cfg, err := c.Read()
	if errors.Is(err, account.ErrUnreadableFile) && !needsConfig(*c.global, c.getenv) {
		if !c.said.skipped {
			c.said.skipped = true
			c.warn(textsafe.SanitizeLine(err.Error()) + "; not used: the server and its key come from the flags and the environment")
		}
		return store, account.Config{}, nil
	}
	return store, cfg, err
}

// needsConfig reports whether the config file feeds a call's settings (profile,
// no other server source, or key not in VQ_API_KEY).
func needsConfig(g GlobalOptions, getenv func(string) string) bool {
	profile, base := g.Profile, g.BaseURL
	if profile == "" && base == "" {
		profile, base = getenv("VQ_PROFILE"), getenv("VQ_BASE_URL")
	}
	switch {
	case profile != "":
		return true
	case base != "":
		return getenv("VQ_API_KEY") == ""
	}
	return cmp.Or(g.Endpoint, getenv("VQ_ENDPOINT")) == ""
}

// resolveSettings: flag, variable, base's entry, file default; the key is VQ_API_KEY
// or base's own only. URLs are lower-cased for hosts' DNS-rebinding guards.
func resolveSettings(ctx context.Context, g GlobalOptions, getenv func(string) string, store account.CredentialStore, cfg account.Config, base string) (Settings, error) {
	_, entry, _ := cfg.Find(base)
	pick := func(flag, env, stored, fallback string) string {
		if flag != "" {
			return flag
		}
		if v := getenv(env); v != "" {
			return v
		}
		return cmp.Or(stored, fallback)
	}
	s := Settings{
		BaseURL:     account.NormalizeBaseURL(base),
		Profile:     entry.Name,
		Project:     pick(g.Project, "VQ_PROJECT", entry.Project, cfg.Project),
		Environment: pick(g.Environment, "VQ_ENVIRONMENT", entry.Environment, cfg.Environment),
		Transport:   pick(g.Transport, "VQ_TRANSPORT", entry.Transport, cfg.Transport),
		Endpoint:    account.NormalizeBaseURL(pick(g.Endpoint, "VQ_ENDPOINT", entry.Endpoint, cfg.Endpoint)),
		ConfigPath:  store.ConfigPath,
		keyring:     store.UseKeyring,
		headerAuth:  g.MCP.headers.Get("Authorization") != "",
	}
	if s.Endpoint != "" && s.Transport == "" {
		s.Transport = api.TransportMCP
	}
	var err error
	if s.APIKey = getenv("VQ_API_KEY"); s.APIKey != "" {
		s.KeySource = account.SourceEnv
	} else if s.BaseURL != "" {
		if s.APIKey, s.KeySource, err = store.Lookup(ctx, s.BaseURL); err != nil {
			return s, err
		}
	}
	// A token serves only key-less calls: a bad token file breaks only those.
	if endpoint := s.MCPEndpoint(); endpoint != "" && s.APIKey == "" {
		tok, found, err := store.LookupOAuth(ctx, endpoint)
		if errors.Is(err, account.ErrUnreadableFile) {
			s.oauthErr = err
			return s, nil
		}
		if err != nil {
			return s, err
		}
		if found {
			// A server signed in with OAuth alone is reached over MCP.
			s.OAuth = &tok
			s.Transport = cmp.Or(s.Transport, api.TransportMCP)
		}
	}
	return s, nil
}

// pickServer picks the server (--base-url, --profile, VQ_BASE_URL, VQ_PROFILE,
// active entry) and says which; a profile and base URL together must agree.
func pickServer(g GlobalOptions, getenv func(string) string, cfg account.Config) (base, pickedBy string, err error) {
	for _, level := range []struct{ base, profile, baseName, profileName string }{
		{g.BaseURL, g.Profile, "--base-url", "--profile"},
		{getenv("VQ_BASE_URL"), getenv("VQ_PROFILE"), "VQ_BASE_URL", "VQ_PROFILE"},
	} {
		switch {
		case level.profile == "" && level.base == "":
			continue
		case level.profile == "":
			return level.base, level.baseName, nil
		}
		key, _, found := cfg.Pick(level.profile)
		if !found {
			return "", "", UnknownProfile(level.profileName, level.profile, cfg)
		}
		if level.base != "" && account.NormalizeBaseURL(level.base) != account.NormalizeBaseURL(key) {
			return "", "", &exitcode.UsageError{
				Reason: fmt.Sprintf("%s %s and %s %s name different servers", level.profileName, level.profile, level.baseName, DisplayURL(level.base)),
				Hint:   "give one of them",
			}
		}
		return key, level.profileName, nil
	}
	if cfg.Active == "" {
		return "", "", nil
	}
	return cfg.Active, "the config file's active server", nil
}

// UnknownProfile is the usage error of a profile no entry answers to.
func UnknownProfile(flag, name string, cfg account.Config) error {
	hint := "sign in first: vq auth login --name " + name + " --base-url https://…"
	if known := ProfileNames(cfg); len(known) > 0 {
		hint = "signed in: " + strings.Join(known, ", ") + "\n" + hint
	}
	return &exitcode.UsageError{Reason: fmt.Sprintf("%s %q: no server is signed in under that name or URL", flag, name), Hint: hint}
}

// ProfileNames are the names --profile accepts.
func ProfileNames(cfg account.Config) []string {
	var names []string
	for _, base := range cfg.BaseURLs() {
		names = append(names, cmp.Or(cfg.Servers[base].Name, DisplayURL(base)))
	}
	return names
}

// DisplayURL is a server URL without its password or terminal controls.
func DisplayURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		raw = u.Redacted()
	}
	return textsafe.SanitizeLine(raw)
}

// Client builds the API client; a missing key is the caller's to report.
func (f *Factory) Client(ctx context.Context) (*mcpclient.Client, Settings, error) {
	s, err := f.settings(ctx, f.Config().forCall)
	if err != nil {
		return nil, s, err
	}
	if s.oauthErr != nil && s.Transport == api.TransportMCP {
		return nil, s, s.oauthErr
	}
	client, err := f.ClientFor(&s)
	return client, s, err
}

// ClientFor builds the API client for s, dropping a key it will not send.
func (f *Factory) ClientFor(s *Settings) (*mcpclient.Client, error) {
	if err := checkServer(*s, f.Global.MCP); err != nil {
		return nil, err
	}
	opts := mcpclient.Options{
		Options: api.Options{
			BaseURL:     s.BaseURL,
			APIKey:      s.APIKey,
			Project:     s.Project,
			Environment: s.Environment,
			Timeout:     f.Global.Timeout,
			NoRetry:     f.Global.NoRetry,
			UserAgent:   "vq/" + f.AppVersion,
			Notify:      f.Terminal().Notices(),
		},
		CallBound: f.Global.timeoutGiven,
		Headers:   f.Global.MCP.headers,
		StdioEnv:  f.Global.MCP.EnvPairs,
		LogLevel:  f.Global.MCP.LogLevel,
		Elicit:    f.Terminal().Elicitor(f.Global.MCP.ElicitDefaults),
	}
	if f.Global.Debug {
		opts.Debug, opts.StdioStderr = f.IOStreams.ErrOut, f.IOStreams.ErrOut
	}
	f.mcpOptions(&opts, s)
	client := mcpclient.New(opts)
	f.clients = append(f.clients, client)
	return client, nil
}

// checkServer refuses settings no call can be sent with.
func checkServer(s Settings, mcpFlags MCPOptions) error {
	if err := checkTransport(s, mcpFlags); err != nil {
		return err
	}
	if s.BaseURL == "" && s.Endpoint == "" {
		return &exitcode.UsageError{
			Reason: "no VisualQ server configured",
			Hint:   "set --base-url or VQ_BASE_URL (or --endpoint for an MCP server), run vq auth login, pick a signed-in server with --profile, or try vq demo",
		}
	}
	for flag, u := range map[string]string{"--base-url": s.BaseURL, "--endpoint": s.Endpoint} {
		if err := CheckServerURL(flag, u); u != "" && err != nil {
			return err
		}
	}
	return checkStdio(s, mcpFlags.EnvPairs)
}

// mcpOptions sets transport and credential. The API key is the base URL's, never
// sent to another --endpoint, stdio included (use --header); else the OAuth token.
func (f *Factory) mcpOptions(opts *mcpclient.Options, s *Settings) {
	opts.OverMCP, opts.Endpoint = s.Transport == api.TransportMCP, s.Endpoint
	if s.Transport != api.TransportMCP {
		return
	}
	if s.APIKey != "" && !sameHost(s.MCPEndpoint(), s.BaseURL) {
		s.withheld = Settings{APIKey: s.APIKey, KeySource: s.KeySource}.credential()
		opts.APIKey, s.APIKey, s.KeySource = "", "", ""
	}
	if opts.APIKey == "" && s.OAuth != nil {
		store, err := f.Config().Store()
		if err == nil {
			opts.OAuth = &account.StoredOAuth{Token: *s.OAuth, Store: store}
			if signIn := NewOAuthSignIn(f); signIn.again() {
				o := signIn.Options(true)
				opts.OAuth.SignIn = &o
			}
		}
	}
}

// CloseClients ends the MCP sessions of every client made.
func (f *Factory) CloseClients() {
	for _, c := range f.clients {
		_ = c.Close()
	}
	f.clients = nil
}

// ShowDocument writes v, a JSON document that is no ToolResponse.
func ShowDocument(ctx context.Context, f *Factory, out *OutputOptions, v any) error {
	f.IOStreams.Documented = true
	return f.Terminal().Print.Document(ctx, v, out.renderOptions())
}

// checkTransport refuses an unknown --transport or one at odds with the MCP flags.
func checkTransport(s Settings, mcpFlags MCPOptions) error {
	switch s.Transport {
	case "", api.TransportInvoke, api.TransportMCP:
	default:
		return &exitcode.UsageError{Reason: fmt.Sprintf("unknown --transport %q", s.Transport), Hint: "use invoke or mcp"}
	}
	if s.Endpoint != "" && s.Transport == api.TransportInvoke {
		return &exitcode.UsageError{Reason: "--endpoint names an MCP endpoint; it cannot be used with --transport invoke", Hint: "drop --transport, or use --transport mcp"}
	}
	if flag := mcpFlags.given(); flag != "" && s.Transport != api.TransportMCP {
		return &exitcode.UsageError{
			Reason: flag + " acts on MCP calls; this command's calls go to the invoke endpoint",
			Hint:   "add --transport mcp (or --endpoint URL), or drop " + flag,
		}
	}
	return nil
}

func sameHost(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && strings.EqualFold(ua.Host, ub.Host) && ua.Scheme == ub.Scheme
}

// CheckServerURL refuses non-http(s), and http off loopback (key in clear);
// source is where the user gave it.
func CheckServerURL(source, raw string) error {
	example, https := "example: https://visualq.example.com", "use an https:// URL"
	if strings.HasPrefix(source, "--") {
		example, https = "example: "+source+" https://visualq.example.com", "use an https:// "+source
	}
	if source == "--endpoint" && strings.HasPrefix(raw, mcpclient.StdioScheme) {
		return nil // a command, checked by checkStdio
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &exitcode.UsageError{Reason: fmt.Sprintf("%s %q is not an http(s) URL", source, DisplayURL(raw)), Hint: example}
	}
	if u.Scheme == "http" && !IsLoopback(u.Hostname()) {
		return &exitcode.UsageError{
			Reason: fmt.Sprintf("refusing to send the API key over plain http to %s", textsafe.SanitizeLine(u.Host)),
			Hint:   https + " (plain http is allowed only for localhost)",
		}
	}
	return nil
}

// IsLoopback reports a host of this machine (names case-insensitive, RFC 4343).
func IsLoopback(host string) bool {
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || (ip != nil && ip.IsLoopback())
}

// checkStdio refuses a stdio: endpoint without a command, and --env without one.
func checkStdio(s Settings, env []string) error {
	if !strings.HasPrefix(s.Endpoint, mcpclient.StdioScheme) {
		if len(env) > 0 {
			return &exitcode.UsageError{Reason: "--env sets a stdio: server's environment; this command's server is not one", Hint: "example: --endpoint 'stdio:npx -y @modelcontextprotocol/server-everything' --env KEY=VALUE"}
		}
		return nil
	}
	if err := mcpclient.CheckStdioEndpoint(s.Endpoint); err != nil {
		return &exitcode.UsageError{Reason: fmt.Sprintf("--endpoint %q %s", s.Endpoint, err), Hint: "example: --endpoint 'stdio:npx -y @modelcontextprotocol/server-everything'"}
	}
	return nil
}
