package sandbox

import (
	"net/http"
	"strings"
)

// The demo API keys every sandbox accepts.
const (
	KeyAdmin    = "vqs_admin"    // every scope, Pro plan
	KeyReadOnly = "vqs_readonly" // read scopes only: write tools are refused
	KeyFree     = "vqs_free"     // Free plan: tracking tools are refused
)

// Key is a demo API key and what it may do.
type Key struct {
	Token       string
	Description string

	readOnly bool // no write scope: approve and create are scope_denied
	freePlan bool // tracking tools are plan_gate'd
}

var demoKeys = []Key{
	{Token: KeyAdmin, Description: "every scope, Pro plan"},
	{Token: KeyReadOnly, Description: "read scopes only (write tools answer scope_denied)", readOnly: true},
	{Token: KeyFree, Description: "Free plan (tracking tools answer plan_gate)", freePlan: true},
}

// Keys lists the demo keys, for printing when a sandbox starts.
func Keys() []Key {
	return append([]Key(nil), demoKeys...)
}

// authenticate finds the key of a request's bearer credential; the string
// explains a refusal.
func authenticate(h http.Header) (Key, string, bool) {
	token := bearerToken(h)
	if token == "" {
		return Key{}, "missing API key: send Authorization: Bearer <key> (sandbox keys: " + keyTokens() + ")", false
	}
	for _, k := range demoKeys {
		if k.Token == token {
			return k, "", true
		}
	}
	return Key{}, "unknown API key (sandbox keys: " + keyTokens() + ")", false
}

// bearerToken is the token of an Authorization: Bearer header, or "".
func bearerToken(h http.Header) string {
	// The scheme is case-insensitive (RFC 9110), the token is not.
	scheme, token, _ := strings.Cut(h.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

func keyTokens() string {
	tokens := make([]string, len(demoKeys))
	for i, k := range demoKeys {
		tokens[i] = k.Token
	}
	return strings.Join(tokens, ", ")
}
