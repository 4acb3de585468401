package api

import "strings"

// Unauthorized is the never-retried answer to HTTP 401, keeping the hint's URL.
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

// ResourceMetadata extracts a challenge's resource_metadata (RFC 9728).
func ResourceMetadata(header string) string {
	return authParam(header, "resource_metadata")
}

// authParam finds name=value in a challenge; lenient: the 401 shows anyway.
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

// lowerASCII keeps offsets (strings.ToLower widens invalid UTF-8).
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// InsufficientScope reads a 403 insufficient_scope challenge (RFC 6750).
func InsufficientScope(challenge string) (string, bool) {
	if authParam(challenge, "error") != "insufficient_scope" {
		return "", false
	}
	return authParam(challenge, "scope"), true
}

// ScopeDenied is the never-retried scope_denied of a token lacking scope.
func ScopeDenied(tool, endpoint, scope string) *ToolResponse {
	msg := "the server needs more scope than the token has (HTTP 403 insufficient_scope from " + endpoint + ")"
	if scope != "" {
		msg = "the server needs the scope " + scope + " (HTTP 403 insufficient_scope from " + endpoint + ")"
	}
	r := ClientError(tool, CodeScopeDenied, msg, false)
	r.Failure = Failure{ScopeDenied: true, Scope: scope}
	return r
}
