package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/account"
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
	o := f.oauthSignIn(!opts.NoBrowser)
	// --scope 'a b' names two, as a challenge (and the hint of a refused
	// call) does.
	o.Scopes, o.ClientMetadataURL = strings.Fields(strings.Join(opts.Scopes, " ")), opts.ClientMetadataURL
	if o.ClientMetadataURL == "" && s.OAuth != nil {
		// Signing in again (the hint of a refused call) offers the
		// document the stored sign-in did.
		o.ClientMetadataURL = s.OAuth.ClientMetadataURL
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

// oauthSignIn is how this process signs in with OAuth, for vq auth login
// --oauth and for the sign-in again of a refused call: the browser (when
// browser; else the URL is printed), or vq itself with VQ_OAUTH_HEADLESS;
// the person's notices on stderr; a client registered beforehand from
// VQ_OAUTH_CLIENT_ID and VQ_OAUTH_CLIENT_SECRET.
func (f *Factory) oauthSignIn(browser bool) account.OAuthLoginOptions {
	o := account.OAuthLoginOptions{
		Notify: func(msg string) {
			// In the TUI a stderr line would tear the frame: it shows the
			// notice under the call instead.
			if !f.asker.Tell(msg) {
				fmt.Fprintln(f.IO.ErrOut, textsafe.Sanitize(msg))
			}
		},
		Headless:     f.oauthHeadless(),
		ClientID:     f.Getenv("VQ_OAUTH_CLIENT_ID"),
		ClientSecret: f.Getenv("VQ_OAUTH_CLIENT_SECRET"),
	}
	if browser {
		o.OpenURL = f.openURL
	}
	return o
}

func (f *Factory) oauthHeadless() bool { return f.Getenv("VQ_OAUTH_HEADLESS") != "" }

// canSignInAgain reports whether a call the server refuses for its OAuth
// token may sign in again: a person at the terminal sees the notices and
// the browser, and headless vq needs none. A script gets the refusal and
// the hint naming vq auth login --oauth.
func (f *Factory) canSignInAgain() bool {
	return f.oauthHeadless() || (f.IO.InTTY && f.IO.ErrTTY)
}

// checkClientMetadataURL is the usage check of --client-metadata-url,
// made before anything is sent.
func checkClientMetadataURL(opts *LoginOptions) error {
	if opts.ClientMetadataURL == "" {
		return nil
	}
	if !opts.OAuth {
		return &exitcode.UsageError{Reason: "--client-metadata-url is a client id for OAuth", Hint: "add --oauth"}
	}
	if err := account.CheckClientMetadataURL(opts.ClientMetadataURL); err != nil {
		return &exitcode.UsageError{
			Reason: fmt.Sprintf("--client-metadata-url %q %s", displayURL(opts.ClientMetadataURL), err),
			Hint:   "example: --client-metadata-url https://vq.example.com/oauth/client.json",
		}
	}
	return nil
}

// logoutOAuth removes the OAuth tokens stored for the MCP endpoint.
func logoutOAuth(f *Factory, store account.CredentialStore, s Settings) error {
	endpoint := s.MCPEndpoint()
	if endpoint == "" {
		return nil
	}
	issuers, err := store.DeleteOAuth(endpoint)
	for _, issuer := range issuers {
		fmt.Fprintf(f.IO.ErrOut, "Removed the OAuth token of %s (issuer %s).\n", textsafe.SanitizeLine(endpoint), textsafe.SanitizeLine(issuer))
	}
	if errors.Is(err, account.ErrUnreadableFile) {
		// Signing out must work when the token file is broken: the key is
		// gone, and the file is named for the person to remove.
		fmt.Fprintf(f.IO.ErrOut, "vq: warning: no OAuth token removed: %s; delete it to remove the tokens it holds\n", textsafe.SanitizeLine(err.Error()))
		return nil
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
