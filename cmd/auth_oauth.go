package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
)

// runOAuthLogin is vq auth login --oauth.
func runOAuthLogin(ctx context.Context, f *Factory, opts *LoginOptions) error {
	client, s, err := f.Client(ctx)
	if err != nil {
		return err
	}
	o := api.OAuthLoginOptions{
		Notify:       func(msg string) { fmt.Fprintln(f.IO.ErrOut, textsafe.Sanitize(msg)) },
		Headless:     f.Getenv("VQ_OAUTH_HEADLESS") != "",
		ClientID:     f.Getenv("VQ_OAUTH_CLIENT_ID"),
		ClientSecret: f.Getenv("VQ_OAUTH_CLIENT_SECRET"),
		Scopes:       opts.Scopes,
	}
	if !opts.NoBrowser {
		o.OpenURL = f.openURL
	}
	tok, err := client.LoginOAuth(ctx, o)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &exitcode.Error{Code: exitcode.Unauthorized, Message: err.Error() + loginHint(err)}
	}
	store, err := f.Credentials()
	if err != nil {
		return err
	}
	where, err := store.SaveOAuth(tok)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IO.ErrOut, "Signed in to %s with OAuth (issuer %s); token stored in the %s.\n",
		textsafe.SanitizeLine(client.MCPEndpoint()), textsafe.SanitizeLine(tok.Issuer), where)
	if s.Transport != api.TransportMCP {
		fmt.Fprintln(f.IO.ErrOut, "The token serves the MCP transport: use --transport mcp (or VQ_TRANSPORT=mcp).")
	}
	return nil
}

// logoutOAuth removes the OAuth tokens stored for the MCP endpoint.
func logoutOAuth(f *Factory, store api.CredentialStore, s Settings) error {
	endpoint := s.MCPEndpoint()
	if endpoint == "" {
		return nil
	}
	issuers, err := store.DeleteOAuth(endpoint)
	for _, issuer := range issuers {
		fmt.Fprintf(f.IO.ErrOut, "Removed the OAuth token of %s (issuer %s).\n", textsafe.SanitizeLine(endpoint), textsafe.SanitizeLine(issuer))
	}
	return err
}

// showOAuthStatus adds the OAuth sign-in, if any, to vq auth status.
func showOAuthStatus(f *Factory, s Settings) {
	if s.OAuth == nil {
		return
	}
	expiry := "no expiry"
	if !s.OAuth.Expiry.IsZero() {
		expiry = "expires " + s.OAuth.Expiry.Local().Format(time.RFC3339)
		if s.OAuth.RefreshToken != "" {
			expiry += ", refreshable"
		}
	}
	fmt.Fprintf(f.IO.Out, "oauth:   %s at issuer %s (%s)\n", textsafe.SanitizeLine(s.MCPEndpoint()), textsafe.SanitizeLine(s.OAuth.Issuer), expiry)
}
