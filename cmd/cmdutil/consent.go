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
	NotAsked  ConsentAnswer = iota // the calls are as they were
	Declined                       // nothing is to be sent
	Consented                      // the calls carry the consent argument
)

// ObtainConsent is consent on the command line by policy, asked at ask
// (nil: nobody can be asked here). Nothing a server sends reaches it as a
// consent: a server's confirm_required only makes a command ask.
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
