package cmd

import (
	"context"
	"errors"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/account"
	"github.com/visualq/vq/internal/textsafe"
)

// withHint adds to a failure api describes what the user can do about it,
// in vq's own commands and flags: api says what happened, cmd how to act.
// Every answer cmd gets from the client passes through it once.
func withHint(resp *api.ToolResponse) *api.ToolResponse {
	if resp == nil {
		return nil
	}
	var hint string
	meta, refused := resp.CredentialRefused()
	url, notServed := resp.NotServed()
	scope, scopeDenied := resp.ScopeNeeded()
	switch {
	case scopeDenied && scope != "":
		hint = "; sign in again to be granted it: vq auth login --oauth --scope " + textsafe.ShellQuote(scope)
	case scopeDenied:
		hint = "; sign in again to be granted it: vq auth login --oauth"
	case resp.CredentialMissing():
		hint = ": run vq auth login, or set VQ_API_KEY"
	case refused && meta != "":
		hint = "; sign in with: vq auth login (or vq auth login --oauth; resource metadata: " + meta + ")"
	case refused:
		hint = "; sign in with: vq auth login"
	case resp.TimedOut():
		hint = timeoutHint
	case notServed:
		hint = notServedHint(url)
	default:
		return resp
	}
	return resp.WithErrorMessage(resp.ErrorMessage() + hint)
}

const timeoutHint = " (raise --timeout if the server is slow)"

// notServedHint explains a 404 from vq's own paths: the base URL is most
// often not the server's root (it ends in /api, say).
func notServedHint(url string) string {
	hint := "; nothing is served at " + url
	base, isVQPath := strings.CutSuffix(url, api.InvokePath)
	if !isVQPath {
		if i := strings.LastIndex(url, api.CIPath); i >= 0 {
			base, isVQPath = url[:i], true
		}
	}
	if !isVQPath {
		return hint
	}
	hint += ": --base-url must be the server's root"
	if root, ok := strings.CutSuffix(base, "/api"); ok {
		hint += ", e.g. --base-url " + root
	}
	return hint
}

// answerWithHint is withHint for the two results of a call.
func answerWithHint(resp *api.ToolResponse, err error) (*api.ToolResponse, error) {
	return withHint(resp), err
}

// hinted is poll with withHint applied to each answer.
func hinted(poll api.PollFunc) api.PollFunc {
	return func(ctx context.Context) (*api.ToolResponse, error) { return answerWithHint(poll(ctx)) }
}

// loginHint is withHint for the errors of an OAuth sign-in.
func loginHint(err error) string {
	switch {
	case errors.Is(err, account.ErrNoOAuth):
		return " (an API key works with: vq auth login)"
	case errors.Is(err, api.ErrTimedOut):
		return timeoutHint
	}
	return ""
}
