package api

import "strings"

// Unauthorized is the client-made response for HTTP 401, never retried;
// it keeps the challenge's resource metadata for the sign-in hint.
func Unauthorized(tool, wwwAuthenticate string) *ToolResponse {
	r := ClientError(tool, CodeUnauthorized, "the server did not accept the credential (HTTP 401)", false)
	r.Failure = Failure{CredentialRefused: true, ResourceMetadata: ResourceMetadata(wwwAuthenticate)}
	return r
}

// MissingCredential is the response for a call not sent for want of a key.
func MissingCredential(tool string) *ToolResponse {
	r := ClientError(tool, CodeUnauthorized, "no API key", false)
	r.Failure = Failure{NoCredential: true, NotSent: true}
	return r
}

// ResourceMetadata extracts the resource_metadata parameter of a
// WWW-Authenticate challenge (RFC 9728), or "" when there is none.
func ResourceMetadata(header string) string {
	return authParam(header, "resource_metadata")
}

// authParam finds name=value or name="value" in a challenge; lenient ("" on
// odd headers), since the 401 is reported either way.
func authParam(header, name string) string {
	rest := header
	for {
		i := strings.Index(lowerASCII(rest), name+"=")
		if i < 0 {
			return ""
		}
		if i > 0 && !strings.ContainsRune(" ,\t", rune(rest[i-1])) {
			rest = rest[i+len(name)+1:]
			continue
		}
		v := rest[i+len(name)+1:]
		if strings.HasPrefix(v, `"`) {
			v = v[1:]
			if end := strings.IndexByte(v, '"'); end >= 0 {
				return v[:end]
			}
			return ""
		}
		if end := strings.IndexAny(v, ", \t"); end >= 0 {
			v = v[:end]
		}
		return v
	}
}

// lowerASCII folds ASCII only, so offsets in the result are offsets in s
// (strings.ToLower widens invalid UTF-8 into U+FFFD).
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// InsufficientScope reads a 403 challenge that says the token lacks a
// scope (RFC 6750 error="insufficient_scope"), and the scope it names.
func InsufficientScope(challenge string) (string, bool) {
	if authParam(challenge, "error") != "insufficient_scope" {
		return "", false
	}
	return authParam(challenge, "scope"), true
}

// ScopeDenied is the client-made scope_denied of a token lacking scope,
// never retried with the same token.
func ScopeDenied(tool, endpoint, scope string) *ToolResponse {
	msg := "the server needs more scope than the token has (HTTP 403 insufficient_scope from " + endpoint + ")"
	if scope != "" {
		msg = "the server needs the scope " + scope + " (HTTP 403 insufficient_scope from " + endpoint + ")"
	}
	r := ClientError(tool, CodeScopeDenied, msg, false)
	r.Failure = Failure{ScopeDenied: true, Scope: scope}
	return r
}
