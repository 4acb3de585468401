package cmd

import (
	"context"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/ui"
)

// Consent is how a command gets consent to send a call that may change a
// project: the server's write tools refuse without confirm: true.
type Consent int

const (
	// ConsentNever: vq gives none of its own. A script's calls without
	// --yes, and an agent's (vq mcp serve, whose own confirm: true is its
	// consent), go as they are: the server's confirm gate answers.
	ConsentNever Consent = iota
	// ConsentAsk: a person is asked, in the TUI's dialog or at a prompt.
	ConsentAsk
	// ConsentGiven: --yes gave it for every call of the command.
	ConsentGiven
)

// WriteIntent is what a command means to send that may write: the calls,
// and the question that asks a person for all of them at once (made only
// when someone is asked: it may need a read of its own).
type WriteIntent struct {
	Calls    []api.Call
	Question func(context.Context) string
}

// yesNo asks a person a yes/no question: the terminal's prompt, or the
// TUI's dialog.
type yesNo func(ctx context.Context, question string) (bool, error)

// consentAnswer is what became of a write intent.
type consentAnswer int

const (
	// notAsked: nobody was asked (no one to ask, or the policy is never):
	// the calls are as they were.
	notAsked consentAnswer = iota
	// declined: the person said no; nothing is to be sent.
	declined
	// consented: --yes, or yes to the question; the calls carry the
	// consent argument.
	consented
)

// consent is the one place consent is given: by policy, it asks (with
// ask; nil means nobody can be asked here) or not, and adds the consent
// argument to every call of the intent when it was given. Nothing a
// server sends reaches it as a consent: a server's confirm_required only
// makes a command ask.
func consent(ctx context.Context, policy Consent, ask yesNo, intent WriteIntent) ([]api.Call, consentAnswer, error) {
	switch {
	case carryConsent(intent.Calls):
		// Given already (KEY:=JSON on the command line, or --yes before
		// they were sent): a confirm_required for them is the server's
		// last word.
		return intent.Calls, notAsked, nil
	case policy == ConsentGiven:
	case policy != ConsentAsk || ask == nil:
		return intent.Calls, notAsked, nil
	default:
		agreed, err := ask(ctx, intent.Question(ctx))
		if err != nil || !agreed {
			return intent.Calls, declined, err
		}
	}
	confirmed := make([]api.Call, len(intent.Calls))
	for i, c := range intent.Calls {
		confirmed[i] = c.WithConfirm()
	}
	return confirmed, consented, nil
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
func sessionConsent(policy Consent, prompter func() yesNo) func(context.Context, ui.WriteIntent) ([]api.Call, bool, error) {
	return func(ctx context.Context, in ui.WriteIntent) ([]api.Call, bool, error) {
		question := func(context.Context) string { return in.Question }
		calls, answer, err := consent(ctx, policy, prompter(), WriteIntent{Calls: in.Calls, Question: question})
		return calls, answer == consented, err
	}
}
