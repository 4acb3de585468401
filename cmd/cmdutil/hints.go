package cmdutil

import (
	"errors"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/account"
	"github.com/visualq/vq/internal/textsafe"
)

// WithHint adds to a failure what to do, in vq's commands, and to a refusal its
// origin; every answer passes through it once.
func WithHint(resp *api.ToolResponse, s Settings) *api.ToolResponse {
	if resp == nil || resp.OK {
		return resp
	}
	if f := resp.Failure; f.NoCredential || namesItsServer(resp) {
		out := *resp // the server's bytes kept: the origin is the client's to tell
		out.Failure.Origin = s.origin()
		if f.NoCredential {
			out.Failure.Origin = s.missingKey()
		}
		resp = &out
	}
	msg, hint := resp.ErrorMessage(), actionHint(resp, s)
	if resp.Failure.CredentialRefused && s.sentNone() {
		msg = "the server asks for a credential, and none was sent (HTTP 401)"
	}
	if msg == resp.ErrorMessage() && hint == "" {
		return resp
	}
	return resp.WithErrorMessage(msg + hint)
}

func actionHint(resp *api.ToolResponse, s Settings) string {
	f := resp.Failure
	meta, refused := f.ResourceMetadata, f.CredentialRefused
	switch {
	case f.ScopeDenied && f.Scope != "":
		return "; sign in again to be granted it: vq auth login --oauth --scope " + textsafe.ShellQuote(f.Scope)
	case f.ScopeDenied:
		return "; sign in again to be granted it: vq auth login --oauth"
	case f.NoCredential:
		return ": run vq auth login, or set VQ_API_KEY"
	case refused && s.sentNone():
		return signInHint(s, meta)
	case refused && meta != "":
		return "; sign in with: vq auth login (or vq auth login --oauth; resource metadata: " + meta + ")"
	case refused:
		return "; sign in with: vq auth login"
	case f.TimedOut:
		return timeoutHint
	case f.NotServed != "":
		return notServedHint(f.NotServed)
	}
	return ""
}

func signInHint(s Settings, meta string) string {
	login := "vq auth login --oauth"
	if s.Endpoint != "" {
		login += " --endpoint " + textsafe.ShellQuote(DisplayURL(s.Endpoint))
	}
	if meta != "" {
		login += " (resource metadata: " + meta + ")"
	}
	return "; sign in with: " + login + ", or send one with --header 'Authorization: Bearer …'"
}

const timeoutHint = " (raise --timeout if the server is slow)"

// notServedHint explains a 404 from vq's paths: the base URL is not the root (/api).
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

func (s Settings) hinted(resp *api.ToolResponse, err error) (*api.ToolResponse, error) {
	return WithHint(resp, s), err
}

// LoginHint is WithHint for the errors of an OAuth sign-in.
func LoginHint(err error) string {
	switch {
	case errors.Is(err, account.ErrNoOAuth):
		return " (an API key works with: vq auth login)"
	case errors.Is(err, api.ErrTimedOut):
		return timeoutHint
	}
	return ""
}
