package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/account"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
)

// oauthLoginRun is vq auth login --oauth.
func oauthLoginRun(ctx context.Context, opts *LoginOptions) error {
	f := opts.Factory
	// It ends writing the config: an unusable one stops it before the browser opens.
	if _, _, err := f.Config().Read(); err != nil {
		return err
	}
	client, s, err := f.Client(ctx)
	if err != nil {
		return err
	}
	was, err := checkNameFree(f, opts.Name, s.BaseURL)
	if err != nil {
		return err
	}
	o := cmdutil.NewOAuthSignIn(f).Options(!opts.NoBrowser)
	// --scope 'a b' names two, as a challenge does.
	o.Scopes, o.ClientMetadataURL = strings.Fields(strings.Join(opts.Scopes, " ")), opts.ClientMetadataURL
	if o.ClientMetadataURL == "" && s.OAuth != nil {
		// Signing in again offers the document the stored sign-in did.
		o.ClientMetadataURL = s.OAuth.ClientMetadataURL
	}
	tok, err := client.LoginOAuth(ctx, o)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, account.ErrNoBrowser) {
			print := f.Terminal().Print
			print.Error(err.Error())
			print.Hint("without a browser, sign in with an API key: echo \"$VISUALQ_KEY\" | vq auth login --with-token\n" +
				"or sign in at a terminal, where --no-browser prints the URL to open")
			return &exitcode.Error{Code: exitcode.Unauthorized}
		}
		return &exitcode.Error{Code: exitcode.Unauthorized, Message: err.Error() + cmdutil.LoginHint(err)}
	}
	store, err := f.Config().Store()
	if err != nil {
		return err
	}
	where, err := store.SaveOAuth(tok)
	if err != nil {
		return err
	}
	if s.BaseURL != "" {
		// The server gets its entry, and becomes the active one, as with a key.
		if _, err := store.Save(s.BaseURL, loginEntry(opts), ""); err != nil {
			return err
		}
	}
	print := f.Terminal().Print
	print.Note(fmt.Sprintf("Signed in to %s with OAuth (issuer %s); token stored in the %s.",
		textsafe.SanitizeLine(client.MCPEndpoint()), textsafe.SanitizeLine(tok.Issuer), where))
	noteRename(print, s.BaseURL, was, opts.Name)
	switch {
	case s.Transport == api.TransportMCP:
	case s.APIKey != "":
		print.Note("The server's API key stays in use; the token serves --transport mcp (or VQ_TRANSPORT=mcp).")
	default:
		print.Note("Commands reach this server over MCP with the token; vq ci needs an API key (vq auth login).")
	}
	return nil
}

// checkClientMetadataURL checks --client-metadata-url before anything is sent.
func checkClientMetadataURL(opts *LoginOptions) error {
	if opts.ClientMetadataURL == "" {
		return nil
	}
	if !opts.OAuth {
		return &exitcode.UsageError{Reason: "--client-metadata-url is a client id for OAuth", Hint: "add --oauth"}
	}
	if err := account.CheckClientMetadataURL(opts.ClientMetadataURL); err != nil {
		return &exitcode.UsageError{
			Reason: fmt.Sprintf("--client-metadata-url %q %s", cmdutil.DisplayURL(opts.ClientMetadataURL), err),
			Hint:   "example: --client-metadata-url https://vq.example.com/oauth/client.json",
		}
	}
	return nil
}

// logoutOAuth removes the OAuth tokens stored for the MCP endpoint.
func logoutOAuth(f *cmdutil.Factory, store account.CredentialStore, s cmdutil.Settings) error {
	endpoint := s.MCPEndpoint()
	if endpoint == "" {
		return nil
	}
	issuers, err := store.DeleteOAuth(endpoint)
	print := f.Terminal().Print
	for _, issuer := range issuers {
		print.Note(fmt.Sprintf("Removed the OAuth token of %s (issuer %s).", textsafe.SanitizeLine(endpoint), textsafe.SanitizeLine(issuer)))
	}
	if errors.Is(err, account.ErrUnreadableFile) {
		// Signing out must work when the token file is broken: the key is
		// gone, and the file is named for the person to remove.
		print.Warning("no OAuth token removed: " + textsafe.SanitizeLine(err.Error()) + "; delete it to remove the tokens it holds")
		return nil
	}
	return err
}
