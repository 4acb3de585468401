package cmdutil

import (
	"github.com/visualq/vq/api/account"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/ui"
)

// OAuthSignIn is how this process signs in with OAuth, for vq auth login
// --oauth and for the sign-in again of a refused call: the browser (or the
// URL printed), or vq itself with VQ_OAUTH_HEADLESS; the person's notices
// where they see them; a client registered beforehand from
// VQ_OAUTH_CLIENT_ID and VQ_OAUTH_CLIENT_SECRET.
type OAuthSignIn struct {
	term   *iostreams.Terminal
	getenv func(string) string
	// open opens a link in the browser; nil is ui.OpenURL.
	open func(string) error
}

func NewOAuthSignIn(f *Factory) OAuthSignIn {
	return OAuthSignIn{term: f.Terminal(), getenv: f.Getenv, open: f.OpenURL}
}

// Options are the sign-in's options; browser opens the authorization URL
// (else it is only printed).
func (o OAuthSignIn) Options(browser bool) account.OAuthLoginOptions {
	opts := account.OAuthLoginOptions{
		// In the TUI a stderr line would tear the frame: it shows the
		// notice under the call instead.
		Notify:       o.term.Tell,
		Headless:     o.headless(),
		Unattended:   !o.term.CanPrompt(),
		ClientID:     o.getenv("VQ_OAUTH_CLIENT_ID"),
		ClientSecret: o.getenv("VQ_OAUTH_CLIENT_SECRET"),
	}
	if browser {
		opts.OpenURL = o.open
		if o.open == nil {
			opts.OpenURL = ui.OpenURL
		}
	}
	return opts
}

func (o OAuthSignIn) headless() bool { return o.getenv("VQ_OAUTH_HEADLESS") != "" }

// again reports whether a call the server refuses for its OAuth token may
// sign in again: a person at the terminal sees the notices and the
// browser, and headless vq needs none. A script (and an agent) gets the
// refusal and the hint naming vq auth login --oauth.
func (o OAuthSignIn) again() bool { return o.headless() || o.term.CanPrompt() }
