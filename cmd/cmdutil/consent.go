package cmdutil

import (
	"context"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/ui"
)

// ConsentAnswer is what became of a write intent.
type ConsentAnswer int

const (
	// NotAsked: nobody was asked (no one to ask, or the policy is never):
	// the calls are as they were.
	NotAsked ConsentAnswer = iota
	// Declined: the person said no; nothing is to be sent.
	Declined
	// Consented: --yes, or yes to the question; the calls carry the
	// consent argument.
	Consented
)

// ObtainConsent is consent on the command line, by policy (ui.Consent.For):
// given by --yes, asked at the prompt ask (nil: nobody can be asked here),
// or not. The TUI asks in its own dialog; both send in.Confirmed() when it
// was given. Nothing a server sends reaches it as a consent: a server's
// confirm_required only makes a command ask.
func ObtainConsent(ctx context.Context, policy ui.Consent, ask iostreams.YesNo, in ui.WriteIntent) ([]api.Call, ConsentAnswer, error) {
	switch policy.For(in) {
	case ui.ConsentAsk:
		if ask == nil {
			break
		}
		if agreed, err := ask(ctx, in.Question(ctx)); err != nil || !agreed {
			return in.Calls, Declined, err
		}
		fallthrough
	case ui.ConsentGiven:
		return in.Confirmed(), Consented, nil
	}
	return in.Calls, NotAsked, nil
}
