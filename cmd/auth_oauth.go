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
	if err := checkNameFree(f, opts.Name, s.BaseURL); err != nil {
		return err
	}
	o := api.OAuthLoginOptions{
		Notify:       func(msg string) { fmt.Fprintln(f.IO.ErrOut, textsafe.Sanitize(msg)) },
		Headless:     f.Getenv("VQ_OAUTH_HEADLESS") != "",
		ClientID:     f.Getenv("VQ_OAUTH_CLIENT_ID"),
		ClientSecret: f.Getenv("VQ_OAUTH_CLIENT_SECRET"),
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
	if s.BaseURL != "" {
		// The server gets its entry, and becomes the active one, as with a key.
		if _, err := store.Save(s.BaseURL, loginEntry(f, opts), ""); err != nil {
			return err
		}
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

// oauthStatus is the OAuth sign-in vq auth status shows for a server.
type oauthStatus struct {
	Endpoint    string    `json:"endpoint"`
	Issuer      string    `json:"issuer"`
	Expiry      time.Time `json:"expiry,omitzero"`
	Refreshable bool      `json:"refreshable"`
}

func oauthStatusOf(s Settings) *oauthStatus {
	if s.OAuth == nil {
		return nil
	}
	return &oauthStatus{Endpoint: displayURL(s.MCPEndpoint()), Issuer: displayURL(s.OAuth.Issuer), Expiry: s.OAuth.Expiry, Refreshable: s.OAuth.RefreshToken != ""}
}

func (o *oauthStatus) String() string {
	expiry := "no expiry"
	if !o.Expiry.IsZero() {
		expiry = "expires " + o.Expiry.Local().Format(time.RFC3339)
		if o.Refreshable {
			expiry += ", refreshable"
		}
	}
	return fmt.Sprintf("%s at issuer %s (%s)", o.Endpoint, o.Issuer, expiry)
}
