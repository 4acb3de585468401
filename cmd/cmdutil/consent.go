package cmdutil

import (
	"context"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/exitcode"
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

// Declined says in one plain line that a write the person declined was not
// made ("Not approved: nothing was sent."; "nothing was written" when the
// server was asked first) and is the error that exits confirm_required, as
// the server's refusal would, for scripts.
func (p *Pipeline) Declined(tool string, asked bool) error {
	not, what := "Declined", "nothing was sent."
	if spec, ok := api.LookupTool(tool); ok && spec.Verb != "" {
		not = "Not " + strings.TrimSuffix(spec.Verb, "e") + "ed"
	}
	if asked {
		what = "nothing was written."
	}
	p.Terminal().Print.Note(not + ": " + what)
	return &exitcode.ResponseError{Code: api.CodeConfirmRequired, Recoverable: true, Message: "declined at the prompt"}
}
