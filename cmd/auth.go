package cmd

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
)

// NewCmdAuth groups credential management.
func NewCmdAuth(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "auth",
		Short: "Sign in, sign out, and see where the API key comes from",
		Long: `Manage the API key vq sends. The key is looked up in this order:
the VQ_API_KEY environment variable, the OS keyring, then the config file
(written 0600). The key is never a flag, so it never shows in ps.`,
	}
	for _, sub := range []*cobra.Command{newCmdAuthLogin(f), newCmdAuthLogout(f), newCmdAuthStatus(f)} {
		c.AddCommand(refuses(sub, "yes", "project", "environment"))
	}
	return c
}

// LoginOptions are the inputs of vq auth login.
type LoginOptions struct {
	WithToken bool
	// OAuth signs in with OAuth at the MCP endpoint instead of an API key;
	// NoBrowser prints the authorization URL instead of opening it.
	OAuth, NoBrowser bool
	// Scopes are OAuth scopes asked for beyond those the server names
	// (--scope), for a server that asks for more only on some calls.
	Scopes []string
}

func newCmdAuthLogin(f *Factory) *cobra.Command {
	opts := &LoginOptions{}
	c := &cobra.Command{
		Use:   "login",
		Short: "Store the server URL and an API key",
		Long: `Store the server URL and an API key for later calls.

With --with-token the key is read from stdin (for scripts and CI). Otherwise
vq asks for the base URL and the key, which is not echoed.

With --oauth vq signs in at the MCP endpoint (--endpoint, else
{base-url}/api/mcp) instead: it follows the endpoint's 401 to its
authorization server, opens the browser (--no-browser prints the URL) and
receives the answer on a 127.0.0.1 port. Tokens are stored per issuer like
keys (OS keyring, else a 0600 file), refreshed when they expire, removed by
vq auth logout. VQ_OAUTH_CLIENT_ID / VQ_OAUTH_CLIENT_SECRET name a client
registered beforehand; VQ_OAUTH_HEADLESS=1 makes vq follow the
authorization URL itself, for servers that need no person (tests).`,
		Example: `  echo "$VISUALQ_KEY" | vq auth login --base-url https://visualq.example.com --with-token
  vq auth login
  vq auth login --oauth --base-url https://visualq.example.com`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if opts.OAuth {
				return runOAuthLogin(c.Context(), f, opts)
			}
			return runLogin(c.Context(), f, opts)
		},
	}
	c.Flags().BoolVar(&opts.WithToken, "with-token", false, "read the API key from stdin")
	c.Flags().BoolVar(&opts.OAuth, "oauth", false, "sign in with OAuth at the MCP endpoint (browser; see vq auth login --help)")
	c.Flags().BoolVar(&opts.NoBrowser, "no-browser", false, "with --oauth: print the sign-in URL instead of opening a browser")
	c.Flags().StringSliceVar(&opts.Scopes, "scope", nil, "with --oauth: also ask for these scopes (a call refused with scope_denied names them)")
	c.MarkFlagsMutuallyExclusive("oauth", "with-token")
	return c
}

func runLogin(ctx context.Context, f *Factory, opts *LoginOptions) error {
	s, err := f.Settings(ctx)
	if err != nil {
		return err
	}
	in := bufio.NewReader(f.IO.In)
	base := s.BaseURL
	var key string
	switch {
	case opts.WithToken:
		if key, err = readLine(ctx, in); err != nil {
			return err
		}
	case f.IO.InTTY:
		if base == "" || f.Global.BaseURL == "" { // ask unless --base-url named it
			base, err = prompt(ctx, f, in, "VisualQ base URL", base)
			if err != nil {
				return err
			}
		}
		fmt.Fprint(f.IO.ErrOut, "API key (input hidden): ")
		key, err = readSecret(ctx, int(os.Stdin.Fd()))
		fmt.Fprintln(f.IO.ErrOut)
		if err != nil {
			return err
		}
	default:
		return &exitcode.UsageError{Reason: "stdin is not a terminal", Hint: "pipe the key in with: vq auth login --with-token"}
	}
	base = strings.TrimRight(base, "/")
	if base == "" {
		return &exitcode.UsageError{Reason: "no base URL", Hint: "pass --base-url https://… or set VQ_BASE_URL"}
	}
	if err := checkServerURL("--base-url", base); err != nil {
		return err
	}
	if key == "" {
		return exitcode.Usagef("empty API key")
	}
	store, err := f.Credentials()
	if err != nil {
		return err
	}
	where, err := store.Save(base, key)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IO.ErrOut, "Signed in to %s; key stored in the %s.\n", base, where)
	return nil
}

func prompt(ctx context.Context, f *Factory, in *bufio.Reader, label, def string) (string, error) {
	if def != "" {
		fmt.Fprintf(f.IO.ErrOut, "%s [%s]: ", label, def)
	} else {
		fmt.Fprintf(f.IO.ErrOut, "%s: ", label)
	}
	line, err := readLine(ctx, in)
	if err != nil || line == "" {
		return def, err
	}
	return line, nil
}

func newCmdAuthLogout(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "logout",
		Short:   "Remove the stored API key for the server",
		Example: "  vq auth logout\n  vq auth logout --base-url https://visualq.example.com",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := f.Settings(c.Context())
			if err != nil {
				return err
			}
			store, err := f.Credentials()
			if err != nil {
				return err
			}
			if err := store.Delete(s.BaseURL); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.ErrOut, "Removed the stored key for %s.\n", orNone(s.BaseURL))
			if err := logoutOAuth(f, store, s); err != nil {
				return err
			}
			if s.KeySource == api.SourceEnv {
				fmt.Fprintln(f.IO.ErrOut, "VQ_API_KEY is still set in the environment.")
			}
			return nil
		},
	}
}

func newCmdAuthStatus(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "status",
		Short:   "Show the server and where the API key comes from (masked)",
		Example: "  vq auth status",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := f.Settings(c.Context())
			if err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "server:  %s\n", orNone(s.BaseURL))
			fmt.Fprintf(f.IO.Out, "config:  %s\n", s.ConfigPath)
			showOAuthStatus(f, s)
			if s.APIKey == "" {
				fmt.Fprintln(f.IO.Out, "api key: none")
				if s.OAuth != nil {
					return nil // signed in with OAuth
				}
				return &exitcode.Error{Code: exitcode.Unauthorized, Message: "not signed in: run vq auth login, or set VQ_API_KEY"}
			}
			fmt.Fprintf(f.IO.Out, "api key: %s (from %s)\n", mask(s.APIKey), s.KeySource)
			return nil
		},
	}
}

// mask shows just enough of a key to recognise it.
func mask(key string) string {
	if len(key) <= 8 {
		return strings.Repeat("*", len(key))
	}
	return key[:4] + strings.Repeat("*", 8) + key[len(key)-2:]
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
