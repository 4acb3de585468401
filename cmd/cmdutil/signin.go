package cmdutil

import (
	"github.com/visualq/vq/api/account"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/ui"
)

// OAuthSignIn is this process's OAuth sign-in: vq auth login --oauth and re-sign-in.
type OAuthSignIn struct {
	term   *iostreams.Terminal
	getenv func(string) string
	open   func(string) error // nil is ui.OpenURL
}

func NewOAuthSignIn(f *Factory) OAuthSignIn {
	return OAuthSignIn{term: f.Terminal(), getenv: f.Getenv, open: f.OpenURL}
}

// Options are the sign-in's options; without browser the URL is only printed.
func (o OAuthSignIn) Options(browser bool) account.OAuthLoginOptions {
	opts := account.OAuthLoginOptions{
		// In the TUI a stderr line would tear the frame: it shows the notice instead.
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

// again reports whether a refused OAuth call may sign in again: a person or
// headless vq may; a script (or agent) gets the refusal's hint.
func (o OAuthSignIn) again() bool { return o.headless() || o.term.CanPrompt() }
