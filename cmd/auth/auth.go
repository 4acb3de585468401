// Package auth holds vq auth: signing in to servers, switching between
// them, and seeing where each key comes from.
package auth

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/account"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
)

// NewCmdAuth groups credential management.
func NewCmdAuth(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "auth",
		Short: "Sign in to servers, switch between them, and see where each key comes from",
		Long: `Manage the servers vq is signed in to and the API key it sends each.

vq keeps one entry per server (its base URL): the key or OAuth tokens, and
optionally a name, a project, an environment and a transport. One server is
active: the one calls go to when no --base-url, --profile, VQ_BASE_URL or
VQ_PROFILE names another. A key is only ever sent to the server it was
stored for.

A server's key is looked up in this order: the VQ_API_KEY environment
variable (for whichever server is picked), the OS keyring, then the config
file (written 0600). The key is never a flag, so it never shows in ps.`,
	}
	c.AddCommand(
		cmdutil.CallsServer(NewCmdLogin(f, nil), &f.Global),
		cmdutil.TakesFlags(NewCmdLogout(f, nil), &f.Global, cmdutil.ServerFlags, cmdutil.EndpointFlags, cmdutil.ConnectionFlags),
		cmdutil.TakesFlags(NewCmdStatus(f, nil), &f.Global, cmdutil.ServerFlags, cmdutil.EndpointFlags, cmdutil.ConnectionFlags),
		NewCmdSwitch(f, nil),
	)
	return c
}

// LoginOptions are the inputs of vq auth login.
type LoginOptions struct {
	Factory           *cmdutil.Factory
	WithToken         bool
	Name              string   // the entry's name, for --profile and vq auth switch.
	NoVerify          bool     // NoVerify saves the key without the call that checks it.
	OAuth, NoBrowser  bool     // OAuth at the MCP endpoint; NoBrowser prints the URL instead.
	Scopes            []string // --scope: asked for beyond the server's
	ClientMetadataURL string   // --client-metadata-url: vq's Client ID Metadata Document
}

func NewCmdLogin(f *cmdutil.Factory, runF func(context.Context, *LoginOptions) error) *cobra.Command {
	opts := &LoginOptions{Factory: f}
	c := &cobra.Command{
		Use:   "login",
		Short: "Sign in to a server: store its URL and an API key",
		Long: `Sign in to one server: store its base URL and an API key for later calls,
and make it the active server. Other servers' entries are kept; signing in
again to the same server replaces its key (and, with another --name, its
name, which vq says).

With --with-token the key is read from stdin (for scripts and CI). Otherwise
vq asks for the base URL (https:// is assumed when none is typed, http://
for a loopback address such as 127.0.0.1:8787) and the key, which is not
echoed.

Before saving, vq checks the key with one call to the server: a key the
server rejects (exit unauthorized) or a server that does not answer is not
saved. --no-verify saves without asking the server (offline setups).

--name gives the entry a name for --profile, VQ_PROFILE and vq auth switch
(without --with-token, vq asks for it after the key);
--project, --environment and --transport given here are stored as that
server's defaults (flags and environment variables still win).

With --oauth vq signs in at the MCP endpoint (--endpoint, else
{base-url}/api/mcp) instead: it follows the endpoint's 401 to its
authorization server, opens the browser (--no-browser prints the URL) and
receives the answer on a 127.0.0.1 port; with no browser to open and no
one at a terminal, it stops at once and says how to sign in without one. Tokens are stored per server and
issuer like keys (OS keyring, else a 0600 file), refreshed when they
expire, removed by vq auth logout. VQ_OAUTH_CLIENT_ID /
VQ_OAUTH_CLIENT_SECRET name a client registered beforehand;
--client-metadata-url names a Client ID Metadata Document you host (an
https URL with a path), which vq offers as its client id where the
authorization server advertises client_id_metadata_document_supported,
and registers otherwise; the sign-ins after offer it again.
VQ_OAUTH_HEADLESS=1 makes vq follow the authorization URL itself, for
servers that need no person (tests).

When the server later refuses the token of a call (401, or 403
insufficient_scope when a tool needs more scope), vq at a terminal, or
with VQ_OAUTH_HEADLESS=1, signs in again for the larger scope, stores the
new token and sends the call again; once per refusal, never in a loop. A
script gets exit unauthorized or scope_denied, with the vq auth login
--oauth --scope S that grants it.`,
		Example: `  echo "$VISUALQ_KEY" | vq auth login --base-url https://visualq.example.com --with-token
  echo "$VISUALQ_KEY" | vq auth login --name prod --base-url https://visualq.example.com --project shop-web --with-token
  vq --profile prod ci run-vrt branch=main
  echo "$VISUALQ_KEY" | vq auth login --name staging --base-url https://staging.visualq.example.com --with-token --no-verify
  vq auth login
  vq auth login --oauth --base-url https://visualq.example.com
  vq auth login --oauth --base-url https://visualq.example.com --client-metadata-url https://vq.example.com/oauth/client.json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkProfileName(opts.Name); err != nil {
				return err
			}
			if err := checkClientMetadataURL(opts); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			if opts.OAuth {
				return oauthLoginRun(c.Context(), opts)
			}
			return loginRun(c.Context(), opts)
		},
	}
	c.Flags().BoolVar(&opts.WithToken, "with-token", false, "read the API key from stdin")
	c.Flags().StringVar(&opts.Name, "name", "", "name of this server's entry, for --profile and vq auth switch")
	c.Flags().BoolVar(&opts.NoVerify, "no-verify", false, "save the key without checking it with the server")
	c.Flags().BoolVar(&opts.OAuth, "oauth", false, "sign in with OAuth at the MCP endpoint (browser; see vq auth login --help)")
	c.Flags().BoolVar(&opts.NoBrowser, "no-browser", false, "with --oauth: print the sign-in URL instead of opening a browser")
	c.Flags().StringSliceVar(&opts.Scopes, "scope", nil, "with --oauth: also ask for these scopes (a call refused with scope_denied names them)")
	c.Flags().StringVar(&opts.ClientMetadataURL, "client-metadata-url", "", "with --oauth: the https URL of a Client ID Metadata Document to use as vq's client id where the authorization server accepts one")
	c.MarkFlagsMutuallyExclusive("oauth", "with-token")
	c.MarkFlagsMutuallyExclusive("oauth", "no-verify")
	return c
}

// The base URL prompt, named in the errors about its answer.
const baseURLPrompt = "VisualQ base URL"

func loginRun(ctx context.Context, opts *LoginOptions) error {
	f := opts.Factory
	s, err := f.Settings(ctx)
	if err != nil {
		return err
	}
	t := f.Terminal()
	if !opts.WithToken && !t.IsStdinTTY() {
		return &exitcode.UsageError{Reason: "stdin is not a terminal", Hint: "pipe the key in with: vq auth login --with-token"}
	}
	in := bufio.NewReader(f.IOStreams.In)
	base, pasted, err := loginServer(ctx, f, in, s, opts.WithToken)
	if err != nil {
		return err
	}
	was, err := checkNameFree(f, opts.Name, base)
	if err != nil {
		return err
	}
	key, err := loginKey(ctx, t, in, pasted, opts.WithToken)
	if err != nil {
		return err
	}
	if !opts.WithToken && opts.Name == "" {
		if opts.Name, was, err = promptName(ctx, f, in, base); err != nil {
			return err
		}
	}
	if !opts.NoVerify {
		if err := verifyKey(ctx, f, base, key); err != nil {
			return err
		}
	}
	store, err := f.Config().Store()
	if err != nil {
		return err
	}
	where, err := store.Save(base, loginEntry(opts), key)
	if err != nil {
		return err
	}
	checked := "checked with the server"
	if opts.NoVerify {
		checked = "not checked (--no-verify)"
	}
	t.Print.Note(fmt.Sprintf("Signed in to %s; key %s, stored in the %s.", describeServer(base, opts.Name), checked, where))
	noteRename(t.Print, base, was, opts.Name)
	return nil
}

// loginServer is the server to sign in to, checked: a flag's, else the prompt's
// answer, with the key when it was pasted on the same line.
func loginServer(ctx context.Context, f *cmdutil.Factory, in *bufio.Reader, s cmdutil.Settings, withToken bool) (base, pasted string, err error) {
	base, source := s.BaseURL, cmp.Or(s.PickedBy, "--base-url")
	if !withToken && (base == "" || (f.Global.BaseURL == "" && f.Global.Profile == "")) { // ask unless a flag named it
		if base, pasted, err = promptBaseURL(ctx, f.Terminal(), in, base); err != nil {
			return "", "", err
		}
		source = "the " + baseURLPrompt + " prompt's answer"
		if base == "" {
			return "", "", exitcode.Usagef("no base URL was entered at the %s prompt", baseURLPrompt)
		}
	}
	base = strings.TrimRight(base, "/")
	if base == "" {
		return "", "", &exitcode.UsageError{Reason: "no base URL", Hint: "pass --base-url https://… or set VQ_BASE_URL"}
	}
	return base, pasted, cmdutil.CheckServerURL(source, base)
}

// promptName asks for the entry's name, as --name gives it (what --profile
// and vq auth switch take); Enter gives none, keeping the current one, was.
func promptName(ctx context.Context, f *cmdutil.Factory, in *bufio.Reader, base string) (name, was string, err error) {
	f.Terminal().Print.Prompt("Profile name, for --profile (Enter for none, or to keep the current one):")
	name, err = iostreams.ReadLine(ctx, in)
	if err == nil {
		err = checkProfileName(name)
	}
	if err == nil {
		was, err = checkNameFree(f, name, base)
	}
	return name, was, err
}

// loginKey is the key pasted with the URL, else stdin's first line with
// --with-token, else the hidden prompt's.
func loginKey(ctx context.Context, t *iostreams.Terminal, in *bufio.Reader, pasted string, withToken bool) (string, error) {
	switch {
	case pasted != "":
		t.Print.Note("API key: read from the same line as the URL (not shown)")
		return pasted, nil
	case withToken:
		key, err := iostreams.ReadLine(ctx, in)
		if err == nil && key == "" {
			err = exitcode.Usagef("empty API key on stdin")
		}
		return key, err
	}
	t.Print.Prompt("API key (input hidden):")
	key, err := iostreams.ReadSecret(ctx, int(os.Stdin.Fd()))
	t.Print.Note("")
	if err == nil && key == "" {
		err = exitcode.Usagef("no API key was entered at the API key prompt")
	}
	return key, err
}

// loginEntry is the name and the flags' defaults stored besides the key (not
// the variables: they are for this run).
func loginEntry(opts *LoginOptions) account.Server {
	g := &opts.Factory.Global
	return account.Server{Name: opts.Name, Project: g.Project, Environment: g.Environment, Transport: g.Transport, Endpoint: g.Endpoint}
}

// profileName is what a --name may be: never a URL, so --profile can tell them apart.
// Compiled when first used, not at every start of vq.
var profileName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// checkProfileName refuses a --name that is no name, before anything is sent.
func checkProfileName(name string) error {
	if name != "" && !profileName().MatchString(name) {
		return exitcode.Usagef("--name %q: use letters, digits, '.', '_' and '-'", name)
	}
	return nil
}

// checkNameFree refuses a --name another server's entry has; it returns base's
// current name, for noteRename.
func checkNameFree(f *cmdutil.Factory, name, base string) (current string, err error) {
	if name == "" {
		return "", nil
	}
	_, cfg, err := f.Config().Read()
	if err != nil {
		return "", err
	}
	if owner, _, taken := cfg.Named(name); taken && account.NormalizeBaseURL(owner) != account.NormalizeBaseURL(base) {
		return "", &exitcode.UsageError{
			Reason: fmt.Sprintf("--name %s is already the name of %s", name, cmdutil.DisplayURL(owner)),
			Hint:   "choose another name, or remove that entry first: vq auth logout --profile " + name,
		}
	}
	_, entry, _ := cfg.Find(base)
	return entry.Name, nil
}

// noteRename says a sign-in under another --name renamed the entry.
func noteRename(print format.Printer, base, was, now string) {
	if was != "" && now != "" && was != now {
		print.Note(fmt.Sprintf("Renamed the entry of %s from %s to %s: --profile %s no longer picks it.", cmdutil.DisplayURL(base), was, now, was))
	}
}

// promptBaseURL asks for the server; a host without a scheme is https://
// (http:// on loopback), as the person is told. Two words are the URL and the
// key pasted together: the key is returned, never echoed on a terminal.
func promptBaseURL(ctx context.Context, t *iostreams.Terminal, in *bufio.Reader, def string) (base, key string, err error) {
	label := baseURLPrompt
	if def != "" {
		label += " [" + def + "]"
	}
	t.Print.Prompt(label + ":")
	var line string
	if file, ok := t.Streams().In.(*os.File); ok && t.IsStdinTTY() {
		line, err = iostreams.ReadLineHidingKey(ctx, file, int(file.Fd()), t.Streams().ErrOut)
	} else {
		line, err = iostreams.ReadLine(ctx, in)
	}
	if err != nil {
		return "", "", err
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return def, "", nil
	}
	base, key = fields[0], strings.Join(fields[1:], " ")
	if !strings.Contains(base, "://") {
		scheme := "https://"
		if u, err := url.Parse(scheme + base); err == nil && cmdutil.IsLoopback(u.Hostname()) {
			scheme = "http://"
		}
		base = scheme + base
		t.Print.Note("No scheme given: using " + cmdutil.DisplayURL(base))
	}
	return base, key, nil
}

// verifyKey makes one cheap call with the key (tools/list on MCP, else
// get_job_status of no job): a 401 rejects it, no VisualQ answer leaves it
// unchecked, any other answer means it got in.
func verifyKey(ctx context.Context, f *cmdutil.Factory, base, key string) error {
	s, err := f.SettingsFor(ctx, base)
	if err != nil {
		return err
	}
	s.APIKey, s.KeySource = key, "vq auth login"
	client, err := f.ClientFor(&s)
	if err != nil {
		return err
	}
	var resp *api.ToolResponse
	if s.Transport == api.TransportMCP {
		_, resp, err = client.ListTools(ctx)
	} else {
		resp, err = client.InvokeOnce(ctx, api.Call{Tool: api.ToolJobStatus, Args: map[string]any{"jobId": "vq-auth-login-check"}})
	}
	if err != nil {
		return err
	}
	if resp == nil {
		return nil
	}
	if resp.Failure.CredentialRefused {
		return &exitcode.Error{Code: exitcode.Unauthorized, Message: fmt.Sprintf(
			"%s rejected the key (HTTP 401); nothing was saved. Check the key and that it belongs to this server", cmdutil.DisplayURL(base))}
	}
	if resp.ErrorCode() == api.CodeHTTPError {
		resp = cmdutil.WithHint(resp, s)
		return &exitcode.Error{Code: exitcode.ForCode(resp.ErrorCode(), resp.IsRecoverable()), Message: fmt.Sprintf(
			"could not check the key with %s: %s; nothing was saved (--no-verify saves it unchecked)", cmdutil.DisplayURL(base), resp.ErrorMessage())}
	}
	return nil
}

// LogoutOptions are the inputs of vq auth logout.
type LogoutOptions struct {
	Factory *cmdutil.Factory
}

func NewCmdLogout(f *cmdutil.Factory, runF func(context.Context, *LogoutOptions) error) *cobra.Command {
	opts := &LogoutOptions{Factory: f}
	return &cobra.Command{
		Use:   "logout",
		Short: "Remove one server's stored key and tokens",
		Long: `Remove the entry of one server: the active one, or the one --base-url or
--profile names. Every other server's entry is kept. When no server is
then active and exactly one is left, that one becomes active; with more
left, vq auth switch picks one.`,
		Example: "  vq auth logout --profile staging\n  vq auth logout --base-url https://staging.visualq.example.com",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return logoutRun(c.Context(), opts)
		},
	}
}

func logoutRun(ctx context.Context, opts *LogoutOptions) error {
	f := opts.Factory
	s, err := f.Settings(ctx)
	if err != nil {
		return err
	}
	if s.BaseURL == "" && s.Endpoint == "" {
		return &exitcode.UsageError{Reason: "no server to sign out of", Hint: "name one with --base-url or --profile (see vq auth status)"}
	}
	store, err := f.Config().Store()
	if err != nil {
		return err
	}
	print := f.Terminal().Print
	_, before, err := f.Config().Read()
	if err != nil {
		return err
	}
	if s.BaseURL != "" {
		removed, err := store.Delete(s.BaseURL)
		if err != nil {
			return err
		}
		if removed {
			print.Note("Signed out of " + describeServer(s.BaseURL, s.Profile) + ": its entry and stored key are removed.")
		} else {
			print.Note("Nothing was stored for " + cmdutil.DisplayURL(s.BaseURL) + ".")
		}
	}
	if err := logoutOAuth(f, store, s); err != nil {
		return err
	}
	if s.KeySource == account.SourceEnv {
		print.Note("VQ_API_KEY is still set in the environment.")
	}
	if after, err := store.Load(); err == nil {
		noteActiveAfterLogout(print, before, after)
	}
	return nil
}

// noteActiveAfterLogout says which server is active now that an entry is gone.
func noteActiveAfterLogout(print format.Printer, before, after account.Config) {
	switch {
	case after.Active != "" && account.NormalizeBaseURL(after.Active) != account.NormalizeBaseURL(before.Active):
		_, entry, _ := after.Find(after.Active)
		print.Note("Active server now: " + describeServer(after.Active, entry.Name) + ", the one still signed in.")
	case after.Active == "" && len(after.Servers) > 0:
		names := cmdutil.ProfileNames(after)
		print.Note("No server is active; still signed in to: " + strings.Join(names, ", ") + ".")
		print.Hint("pick one with: vq auth switch " + names[0] + " (or --profile NAME for one call)")
	}
}

// SwitchOptions are the inputs of vq auth switch.
type SwitchOptions struct {
	Factory *cmdutil.Factory
	Server  string // the base URL or login --name of the server to make active.
}

func NewCmdSwitch(f *cmdutil.Factory, runF func(*SwitchOptions) error) *cobra.Command {
	opts := &SwitchOptions{Factory: f}
	return &cobra.Command{
		Use:   "switch URL|NAME",
		Short: "Make another signed-in server the active one",
		Long: `Make the server with this base URL or login --name the active one: the
server calls go to when no --base-url, --profile, VQ_BASE_URL or
VQ_PROFILE names another.`,
		Example: "  vq auth switch prod\n  vq auth switch https://visualq.example.com",
		Args:    cobra.ExactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			_, cfg, err := f.Config().Read()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return cmdutil.ProfileNames(cfg), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Server = args[0]
			if runF != nil {
				return runF(opts)
			}
			return switchRun(opts)
		},
	}
}

func switchRun(opts *SwitchOptions) error {
	f := opts.Factory
	store, cfg, err := f.Config().Read()
	if err != nil {
		return err
	}
	base, found, err := store.Activate(opts.Server)
	if err != nil {
		return err
	}
	if !found {
		return cmdutil.UnknownProfile("vq auth switch", opts.Server, cfg)
	}
	_, entry, _ := cfg.Find(base)
	print := f.Terminal().Print
	print.Note("Active server: " + describeServer(base, entry.Name) + ".")
	for _, name := range []string{"VQ_BASE_URL", "VQ_PROFILE"} {
		if f.Getenv(name) != "" {
			print.Note(name + " is set in the environment: it still picks the server while it is.")
		}
	}
	return nil
}

// describeServer names a server: its URL, and its entry's name if any.
func describeServer(base, name string) string {
	if name == "" {
		return cmdutil.DisplayURL(base)
	}
	return cmdutil.DisplayURL(base) + " (" + name + ")"
}

// mask shows just enough of a key to recognise it.
func mask(key string) string {
	if len(key) <= 8 {
		return strings.Repeat("*", len(key))
	}
	return key[:4] + strings.Repeat("*", 8) + key[len(key)-2:]
}

// StatusOptions are the inputs of vq auth status.
type StatusOptions struct {
	Factory *cmdutil.Factory
	Output  cmdutil.OutputOptions
}

func NewCmdStatus(f *cmdutil.Factory, runF func(context.Context, *StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{Factory: f}
	c := &cobra.Command{
		Use:   "status",
		Short: "List the servers signed in to, the active one, and where each key comes from (masked)",
		Long: `List every server vq is signed in to, mark the active one and say what
picked it, and show where each server's key or OAuth token comes from,
masked. The active server's settings are the ones a call would use, with
flags and environment variables applied; VQ_API_KEY counts for it alone.
It exits unauthorized when the active server has no credential.`,
		Example: "  vq auth status\n  vq auth status --json",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return statusRun(c.Context(), opts)
		},
	}
	cmdutil.AddOutputFlags(c, &opts.Output, "text", "json")
	return c
}

func statusRun(ctx context.Context, opts *StatusOptions) error {
	f := opts.Factory
	s, err := f.Settings(ctx)
	if err != nil {
		return err
	}
	st, err := collectStatus(ctx, f, s)
	if err != nil {
		return err
	}
	if opts.Output.Structured() {
		err = cmdutil.ShowDocument(ctx, f, &opts.Output, st)
	} else {
		err = f.Terminal().Print.AuthStatus(st)
	}
	if err != nil {
		return err
	}
	switch {
	case s.BaseURL == "" && s.Endpoint == "":
		return &exitcode.Error{Code: exitcode.Unauthorized, Message: "no active server: run vq auth login, or pick one with vq auth switch or --profile"}
	case s.APIKey == "" && s.OAuth == nil:
		return &exitcode.Error{Code: exitcode.Unauthorized, Message: "not signed in to " + cmdutil.DisplayURL(cmp.Or(s.BaseURL, s.Endpoint)) + ": run vq auth login, or set VQ_API_KEY"}
	}
	return nil
}

// collectStatus lists the active server as s resolved it, the others as stored.
func collectStatus(ctx context.Context, f *cmdutil.Factory, s cmdutil.Settings) (format.AuthStatus, error) {
	store, cfg, err := f.Config().Read()
	if err != nil {
		return format.AuthStatus{}, err
	}
	st := format.AuthStatus{Config: s.ConfigPath, Servers: []format.ServerStatus{}}
	if s.BaseURL != "" || s.Endpoint != "" {
		st.Active, st.PickedBy = cmdutil.DisplayURL(cmp.Or(s.BaseURL, s.Endpoint)), s.PickedBy
		if s.OAuth == nil {
			// Settings leave it out when a key is there; status shows both.
			if s.OAuth, err = storedOAuth(ctx, store, s); err != nil {
				return st, err
			}
		}
		st.Servers = append(st.Servers, serverStatusOf(s, true))
	}
	for _, base := range cfg.BaseURLs() {
		if s.BaseURL != "" && account.NormalizeBaseURL(base) == account.NormalizeBaseURL(s.BaseURL) {
			continue
		}
		entry := cfg.Servers[base]
		other := cmdutil.Settings{BaseURL: base, Profile: entry.Name, Project: entry.Project, Environment: entry.Environment, Transport: entry.Transport, Endpoint: entry.Endpoint}
		if other.APIKey, other.KeySource, err = store.Lookup(ctx, base); err != nil {
			return st, err
		}
		if other.OAuth, err = storedOAuth(ctx, store, other); err != nil {
			return st, err
		}
		st.Servers = append(st.Servers, serverStatusOf(other, false))
	}
	return st, nil
}

// storedOAuth is the token stored for s's MCP endpoint; an unreadable file is none.
func storedOAuth(ctx context.Context, store account.CredentialStore, s cmdutil.Settings) (*account.OAuthToken, error) {
	endpoint := s.MCPEndpoint()
	if endpoint == "" {
		return nil, nil
	}
	tok, found, err := store.LookupOAuth(ctx, endpoint)
	if errors.Is(err, account.ErrUnreadableFile) || err == nil && !found {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &tok, nil
}

func serverStatusOf(s cmdutil.Settings, active bool) format.ServerStatus {
	ss := format.ServerStatus{
		BaseURL: cmdutil.DisplayURL(s.BaseURL), Name: s.Profile, Active: active, KeySource: s.KeySource,
		Project: s.Project, Environment: s.Environment, Transport: s.Transport, Endpoint: cmdutil.DisplayURL(s.Endpoint),
	}
	if s.OAuth != nil {
		ss.OAuth = &format.OAuthStatus{Endpoint: cmdutil.DisplayURL(s.MCPEndpoint()), Issuer: cmdutil.DisplayURL(s.OAuth.Issuer), Expiry: s.OAuth.Expiry,
			Refreshable: s.OAuth.RefreshToken != "", Scopes: s.OAuth.Scopes}
	}
	if s.APIKey != "" {
		ss.APIKey = mask(s.APIKey)
	}
	return ss
}
