package cmdutil

import (
	"context"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/ui"
)

// WriteIntent is what a command means to send that may write: the calls,
// and the question that asks a person for all of them at once (made only
// when someone is asked: it may need a read of its own).
type WriteIntent struct {
	Calls    []api.Call
	Question func(context.Context) string
}

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

// ObtainConsent is the one place consent is given: by policy, it asks (with
// ask; nil means nobody can be asked here) or not, and adds the consent
// argument to every call of the intent when it was given. Nothing a
// server sends reaches it as a consent: a server's confirm_required only
// makes a command ask.
func ObtainConsent(ctx context.Context, policy iostreams.Consent, ask iostreams.YesNo, intent WriteIntent) ([]api.Call, ConsentAnswer, error) {
	switch {
	case carryConsent(intent.Calls):
		// Given already (KEY:=JSON on the command line, or --yes before
		// they were sent): a confirm_required for them is the server's
		// last word.
		return intent.Calls, NotAsked, nil
	case policy == iostreams.ConsentGiven:
	case policy != iostreams.ConsentAsk || ask == nil:
		return intent.Calls, NotAsked, nil
	default:
		agreed, err := ask(ctx, intent.Question(ctx))
		if err != nil || !agreed {
			return intent.Calls, Declined, err
		}
	}
	confirmed := make([]api.Call, len(intent.Calls))
	for i, c := range intent.Calls {
		confirmed[i] = c.WithConfirm()
	}
	return confirmed, Consented, nil
}

// carryConsent reports calls that all carry the consent argument.
func carryConsent(calls []api.Call) bool {
	for _, c := range calls {
		if c.Args[api.ArgConfirm] != true {
			return false
		}
	}
	return len(calls) > 0
}

// sessionConsent is the TUI's door to consent (ui.Options.Consent): a
// write the person asked for there goes through consent by the command's
// policy, asked with the prompter of the moment (the TUI's dialog while
// it runs).
func sessionConsent(policy iostreams.Consent, prompter func() iostreams.YesNo) func(context.Context, ui.WriteIntent) ([]api.Call, bool, error) {
	return func(ctx context.Context, in ui.WriteIntent) ([]api.Call, bool, error) {
		question := func(context.Context) string { return in.Question }
		calls, answer, err := ObtainConsent(ctx, policy, prompter(), WriteIntent{Calls: in.Calls, Question: question})
		return calls, answer == Consented, err
	}
}
