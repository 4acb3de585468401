package cmdutil

import (
	"net/url"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/account"
	"github.com/visualq/vq/internal/textsafe"
)

// A refusal names its server, profile and credential: with two servers and an
// env key, a person must tell which refused which key.

// server is host[:port] of the endpoint calls go to.
func (s Settings) server() string {
	target := s.BaseURL
	if s.Transport == api.TransportMCP {
		target = s.MCPEndpoint()
	}
	return textsafe.SanitizeLine(hostOf(target))
}

// serverName is server with the profile that names it: the TUI's header.
func (s Settings) serverName() string {
	if s.Profile == "" {
		return s.server()
	}
	return s.server() + " (profile " + s.Profile + ")"
}

// credential says what the call carried.
func (s Settings) credential() string {
	switch {
	case s.APIKey != "" && s.KeySource == account.SourceEnv:
		return "API key from VQ_API_KEY"
	case s.APIKey != "" && s.KeySource != "":
		return "API key from the " + textsafe.SanitizeLine(s.KeySource)
	case s.APIKey != "":
		return "API key"
	case s.OAuth != nil:
		return "OAuth token from vq auth login --oauth"
	case s.headerAuth:
		return "Authorization from --header"
	case s.withheld != "" && s.BaseURL == "":
		return "no credential sent: the " + s.withheld + " goes only to its VisualQ server (--base-url)"
	case s.withheld != "":
		return "no credential sent: the " + s.withheld + " goes only to " + textsafe.SanitizeLine(hostOf(s.BaseURL))
	}
	return "no credential sent"
}

// ci are a CI endpoint call's settings: the base URL's, with the API key alone.
func (s Settings) ci() Settings {
	s.Transport, s.OAuth, s.headerAuth = api.TransportInvoke, nil, false
	return s
}

func (s Settings) sentNone() bool {
	return s.APIKey == "" && s.OAuth == nil && !s.headerAuth
}

// origin is the parenthesis a refusal carries: "(server 127.0.0.1:8787,
// profile prod; API key from VQ_API_KEY)".
func (s Settings) origin() string {
	return "(" + s.serverAndProfile() + "; " + s.credential() + ")"
}

// missingKey is the origin of a call never sent for want of a key.
func (s Settings) missingKey() string {
	if s.withheld != "" {
		return s.origin()
	}
	where := "the config file " + textsafe.SanitizeLine(s.ConfigPath) + " holds"
	if s.keyring {
		where = "the OS keyring and the config file " + textsafe.SanitizeLine(s.ConfigPath) + " hold"
	}
	return "(" + s.serverAndProfile() + "; VQ_API_KEY is unset, and " + where + " none for it)"
}

func (s Settings) serverAndProfile() string {
	if s.Profile == "" {
		return "server " + s.server()
	}
	return "server " + s.server() + ", profile " + s.Profile
}

// namesItsServer reports the refusals that say where they came from.
func namesItsServer(resp *api.ToolResponse) bool {
	switch resp.ErrorCode() {
	case api.CodeUnauthorized, api.CodeScopeDenied, api.CodePlanGate, api.CodeHTTPError:
		return true
	}
	return false
}

// hostOf is a URL's host[:port], or raw itself when it names none.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}
