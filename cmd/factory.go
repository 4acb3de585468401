package cmd

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
)

// Factory carries what every command needs: streams, environment and the
// global flags, and builds the API client from them on demand.
type Factory struct {
	IO     *IOStreams
	Getenv func(string) string

	Global GlobalOptions
}

// GlobalOptions are the root's persistent flags (SPEC.md, global flags).
type GlobalOptions struct {
	BaseURL     string
	Project     string
	Environment string
	Transport   string
	Endpoint    string
	JSON        bool
	Format      string
	Wait        bool
	Interval    time.Duration
	JQ          string
	Yes         bool
	NoTUI       bool
	Timeout     time.Duration
	NoRetry     bool
	Debug       bool
	NoColor     bool
}

// NewFactory is the factory of the real process.
func NewFactory() *Factory {
	return &Factory{IO: SystemIO(), Getenv: os.Getenv}
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
// when VQ_API_KEY is unset, the keyring.
func (f *Factory) Settings() (Settings, error) {
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
	if s.APIKey = f.Getenv("VQ_API_KEY"); s.APIKey != "" {
		s.KeySource = api.SourceEnv
	} else if s.BaseURL != "" {
		if s.APIKey, s.KeySource, err = store.Lookup(s.BaseURL); err != nil {
			return s, err
		}
	}
	return s, nil
}

// Client builds the API client for the resolved settings. A missing server
// is a usage error; a missing key is reported by the caller as the
// unauthorized response, before anything is sent.
func (f *Factory) Client() (*api.Client, Settings, error) {
	s, err := f.Settings()
	if err != nil {
		return nil, s, err
	}
	if s.BaseURL == "" {
		return nil, s, &format.UsageError{
			Reason: "no VisualQ server configured",
			Hint:   "set --base-url or VQ_BASE_URL, run vq auth login, or try vq demo",
		}
	}
	if err := checkBaseURL(s.BaseURL); err != nil {
		return nil, s, err
	}
	opts := api.Options{
		BaseURL:     s.BaseURL,
		APIKey:      s.APIKey,
		Project:     s.Project,
		Environment: s.Environment,
		Timeout:     f.Global.Timeout,
		NoRetry:     f.Global.NoRetry,
		UserAgent:   "vq/" + versionString(),
		Notify:      func(msg string) { fmt.Fprintln(f.IO.ErrOut, "vq: "+format.SanitizeLine(msg)) },
	}
	if f.Global.Debug || f.Getenv("VQ_DEBUG") != "" {
		opts.Debug = f.IO.ErrOut
	}
	return api.New(opts), s, nil
}

// checkBaseURL refuses a base URL that is not http(s), and plain http to a
// host other than loopback, where the key would cross the network in clear.
func checkBaseURL(base string) error {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &format.UsageError{Reason: fmt.Sprintf("--base-url %q is not an http(s) URL", base), Hint: "example: --base-url https://visualq.example.com"}
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return &format.UsageError{
			Reason: fmt.Sprintf("refusing to send the API key over plain http to %s", u.Host),
			Hint:   "use an https:// --base-url (plain http is allowed only for localhost)",
		}
	}
	return nil
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "::1" || strings.HasPrefix(host, "127.")
}
