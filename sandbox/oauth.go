package sandbox

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/visualq/vq/api"
)

// The sandbox's minimal OAuth 2.1 authorization server, so vq auth login
// --oauth runs end to end locally: dynamic client registration, an
// authorization endpoint that approves at once (there is no person to
// ask), the token endpoint with PKCE S256 and rotating refresh tokens.
const (
	prmPath          = "/.well-known/oauth-protected-resource"
	asMetadataPath   = "/.well-known/oauth-authorization-server"
	authorizePath    = "/oauth/authorize"
	tokenPath        = "/oauth/token"
	registerPath     = "/oauth/register"
	accessTokenLife  = time.Hour
	authCodeLifetime = time.Minute
)

type authServer struct {
	mu      sync.Mutex
	clients map[string][]string // client id → registered redirect URIs
	codes   map[string]authCode
	access  map[string]time.Time // access token → expiry
	refresh map[string]string    // refresh token → client id
}

type authCode struct {
	clientID, redirectURI, challenge string
	expires                          time.Time
}

func newAuthServer() *authServer {
	return &authServer{clients: map[string][]string{}, codes: map[string]authCode{}, access: map[string]time.Time{}, refresh: map[string]string{}}
}

func (a *authServer) mount(mux *http.ServeMux) {
	mux.HandleFunc("GET "+prmPath, a.serveResourceMetadata)
	mux.HandleFunc("GET "+prmPath+api.MCPPath, a.serveResourceMetadata)
	mux.HandleFunc("GET "+asMetadataPath, a.serveServerMetadata)
	mux.HandleFunc("POST "+registerPath, a.serveRegister)
	mux.HandleFunc("GET "+authorizePath, a.serveAuthorize)
	mux.HandleFunc("POST "+tokenPath, a.serveToken)
}

func (a *authServer) validAccess(token string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	exp, ok := a.access[token]
	return ok && time.Now().Before(exp)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(mustEncode(v)) //nolint:errcheck // client gone
}

func oauthError(w http.ResponseWriter, code, description string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": description})
}

// serveResourceMetadata is RFC 9728's document for the MCP endpoint.
func (a *authServer) serveResourceMetadata(w http.ResponseWriter, r *http.Request) {
	base := baseURL(r)
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 base + api.MCPPath,
		"authorization_servers":    []string{base},
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "VisualQ sandbox",
	})
}

// serveServerMetadata is RFC 8414's document; the sandbox is its own
// issuer.
func (a *authServer) serveServerMetadata(w http.ResponseWriter, r *http.Request) {
	base := baseURL(r)
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         base,
		"authorization_endpoint":                         base + authorizePath,
		"token_endpoint":                                 base + tokenPath,
		"registration_endpoint":                          base + registerPath,
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"authorization_response_iss_parameter_supported": true,
	})
}

func (a *authServer) serveRegister(w http.ResponseWriter, r *http.Request) {
	var meta struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		oauthError(w, "invalid_client_metadata", "redirect_uris is required")
		return
	}
	for _, u := range meta.RedirectURIs {
		if !loopbackRedirect(u) {
			oauthError(w, "invalid_redirect_uri", "the sandbox accepts loopback redirect URIs only: "+u)
			return
		}
	}
	id := "vqc_" + randomToken()
	a.mu.Lock()
	a.clients[id] = meta.RedirectURIs
	a.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  id,
		"client_id_issued_at":        time.Now().Unix(),
		"redirect_uris":              meta.RedirectURIs,
		"token_endpoint_auth_method": "none",
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
	})
}

func loopbackRedirect(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Scheme == "http" && (u.Hostname() == "127.0.0.1" || u.Hostname() == "localhost" || u.Hostname() == "::1")
}

// serveAuthorize approves at once and redirects with a code, as a server
// whose person has already consented would. Mistakes that make the
// redirect URI untrustworthy are shown here, never redirected.
func (a *authServer) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	clientID, redirectURI := q.Get("client_id"), q.Get("redirect_uri")
	a.mu.Lock()
	uris, known := a.clients[clientID]
	a.mu.Unlock()
	if !known || !slices.Contains(uris, redirectURI) {
		http.Error(w, "unknown client_id or unregistered redirect_uri", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(redirectURI)
	answer := back.Query()
	answer.Set("state", q.Get("state"))
	answer.Set("iss", baseURL(r))
	switch {
	case q.Get("response_type") != "code":
		answer.Set("error", "unsupported_response_type")
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		answer.Set("error", "invalid_request")
		answer.Set("error_description", "PKCE with code_challenge_method=S256 is required")
	default:
		code := "vq_code_" + randomToken()
		a.mu.Lock()
		a.codes[code] = authCode{clientID: clientID, redirectURI: redirectURI, challenge: q.Get("code_challenge"), expires: time.Now().Add(authCodeLifetime)}
		a.mu.Unlock()
		answer.Set("code", code)
	}
	back.RawQuery = answer.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (a *authServer) serveToken(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, "invalid_request", err.Error())
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	clientID := r.PostForm.Get("client_id")
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		code, ok := a.codes[r.PostForm.Get("code")]
		delete(a.codes, r.PostForm.Get("code")) // one use, even a failed one
		switch {
		case !ok || time.Now().After(code.expires):
			oauthError(w, "invalid_grant", "unknown or expired code")
		case code.clientID != clientID || code.redirectURI != r.PostForm.Get("redirect_uri"):
			oauthError(w, "invalid_grant", "the code was issued to another client or redirect_uri")
		case s256(r.PostForm.Get("code_verifier")) != code.challenge:
			oauthError(w, "invalid_grant", "code_verifier does not match the code_challenge")
		default:
			a.issueLocked(w, clientID)
		}
	case "refresh_token":
		owner, ok := a.refresh[r.PostForm.Get("refresh_token")]
		if !ok || owner != clientID {
			oauthError(w, "invalid_grant", "unknown refresh token")
			return
		}
		delete(a.refresh, r.PostForm.Get("refresh_token")) // rotated
		a.issueLocked(w, clientID)
	default:
		oauthError(w, "unsupported_grant_type", "use authorization_code or refresh_token")
	}
}

func (a *authServer) issueLocked(w http.ResponseWriter, clientID string) {
	access, refresh := "vq_at_"+randomToken(), "vq_rt_"+randomToken()
	a.access[access] = time.Now().Add(accessTokenLife)
	a.refresh[refresh] = clientID
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token":  access,
		"token_type":    "Bearer",
		"expires_in":    int(accessTokenLife.Seconds()),
		"refresh_token": refresh,
	})
}

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func randomToken() string { return rand.Text() }
