package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// OAuthOptions shape an OAuthServer.
type OAuthOptions struct {
	// CIMD advertises client_id_metadata_document_supported: the
	// authorization server takes an https URL as a client id unregistered.
	CIMD bool
	// Needs are the scopes each MCP method needs ("tools/call"); a method
	// not named needs no token. A request without a token is refused with
	// 401 naming the scopes, one whose token lacks them with 403
	// insufficient_scope naming them.
	Needs map[string][]string
	// Withhold are scopes the authorization server never grants, however
	// often it is asked: a step-up that cannot succeed.
	Withhold []string
	// NewestOnly makes the MCP server speak only revision 2026-07-28
	// (stateless, opened with server/discover): it refuses initialize
	// with HTTP 400.
	NewestOnly bool
	// Detour makes the authorization endpoint first send the browser to
	// Detour (a login page), with the authorization's query and hop=1,
	// where it answers as without a detour: a path is on this server, a
	// URL on another.
	Detour string
}

// OAuthServer is an MCP server behind OAuth 2.1, its authorization server
// on the same origin, for the tests of vq's sign-in: protected-resource
// and authorization-server metadata, dynamic registration, an
// authorization endpoint that approves at once (as a server whose person
// has consented), and a token endpoint granting the scopes authorized.
// Its MCP endpoint, Endpoint, is the SDK's server with one tool, echo. It
// records every authorization request and each request the MCP server
// answered.
type OAuthServer struct {
	*httptest.Server
	// Endpoint is the MCP endpoint: URL + "/mcp".
	Endpoint string

	opts OAuthOptions
	mu   sync.Mutex
	// grants are the scopes of each code, then of each access token.
	grants         map[string][]string
	authorizations []url.Values
	registrations  int
	answered       map[string]int
}

// OAuthTool is the OAuthServer's one tool, and OAuthToolAnswer its text.
const (
	OAuthTool       = "echo"
	OAuthToolAnswer = "echoed"
)

// NewOAuthServer starts an OAuthServer, closed when the test ends.
func NewOAuthServer(t testing.TB, opts OAuthOptions) *OAuthServer {
	t.Helper()
	NoLeaks(t)
	s := &OAuthServer{opts: opts, grants: map[string][]string{}, answered: map[string]int{}}
	var serverOpts *mcp.ServerOptions
	var handlerOpts *mcp.StreamableHTTPOptions
	if opts.NewestOnly {
		serverOpts = &mcp.ServerOptions{SupportedProtocolVersions: []string{"2026-07-28"}}
		handlerOpts = &mcp.StreamableHTTPOptions{Stateless: true}
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "oauth-fake", Version: "1"}, serverOpts)
	server.AddTool(&mcp.Tool{Name: OAuthTool, InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: OAuthToolAnswer}}}, nil
		})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, handlerOpts)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": s.Endpoint, "authorization_servers": []string{s.URL}})
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer":                                s.URL,
			"authorization_endpoint":                s.URL + "/authorize",
			"token_endpoint":                        s.URL + "/token",
			"registration_endpoint":                 s.URL + "/register",
			"response_types_supported":              []string{"code"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
			"client_id_metadata_document_supported": opts.CIMD,
		})
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		var meta struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		json.NewDecoder(r.Body).Decode(&meta) //nolint:errcheck // an empty registration is still one
		s.mu.Lock()
		s.registrations++
		id := fmt.Sprintf("registered-%d", s.registrations)
		s.mu.Unlock()
		writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if opts.Detour != "" && q.Get("hop") == "" {
			q.Set("hop", "1")
			http.Redirect(w, r, opts.Detour+"?"+q.Encode(), http.StatusFound)
			return
		}
		s.mu.Lock()
		s.authorizations = append(s.authorizations, q)
		code := fmt.Sprintf("code-%d", len(s.authorizations))
		s.grants[code] = slices.DeleteFunc(strings.Fields(q.Get("scope")), func(scope string) bool { return slices.Contains(opts.Withhold, scope) })
		s.mu.Unlock()
		back, err := url.Parse(q.Get("redirect_uri"))
		if err != nil {
			http.Error(w, "bad redirect_uri", http.StatusBadRequest)
			return
		}
		answer := back.Query()
		answer.Set("code", code)
		answer.Set("state", q.Get("state"))
		back.RawQuery = answer.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		code := r.PostFormValue("code")
		token := "access-" + code
		s.mu.Lock()
		scopes, ok := s.grants[code]
		if ok {
			delete(s.grants, code)
			s.grants[token] = scopes
		}
		s.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": strings.Join(scopes, " "),
		})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		method := s.challenge(w, r)
		if method == "" {
			return
		}
		if method == "initialize" && s.opts.NewestOnly {
			// As the conformance suite's servers of 2026-07-28 do.
			http.Error(w, "initialize is not a method of 2026-07-28", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.answered[method]++
		s.mu.Unlock()
		mcpHandler.ServeHTTP(w, r)
	})
	s.Server = httptest.NewServer(mux)
	s.Endpoint = s.URL + "/mcp"
	t.Cleanup(func() {
		// A session its client dropped without ending it would outlive
		// the test.
		for ss := range server.Sessions() {
			ss.Close()
		}
		s.Close()
	})
	return s
}

// challenge refuses a request whose token lacks the scopes its method
// needs, and returns "" then; else the request's method ("GET" for the
// standalone stream).
func (s *OAuthServer) challenge(w http.ResponseWriter, r *http.Request) string {
	method := r.Method
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
		}
		json.Unmarshal(body, &msg) //nolint:errcheck // a response has no method
		method = msg.Method
	}
	needs := s.opts.Needs[method]
	if len(needs) == 0 {
		return method
	}
	params := fmt.Sprintf(`scope=%q, resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, strings.Join(needs, " "), s.URL)
	token, hasToken := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	granted, known := s.grants[token]
	s.mu.Unlock()
	switch {
	case !hasToken || !known:
		w.Header().Set("WWW-Authenticate", "Bearer "+params)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
	case slices.ContainsFunc(needs, func(need string) bool { return !slices.Contains(granted, need) }):
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", `+params)
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "insufficient_scope"})
	default:
		return method
	}
	return ""
}

// Authorizations are the queries of the authorization requests so far.
func (s *OAuthServer) Authorizations() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.authorizations)
}

// Registrations counts the dynamic client registrations.
func (s *OAuthServer) Registrations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.registrations
}

// Answered counts the requests of an MCP method the server answered.
func (s *OAuthServer) Answered(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered[method]
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v) //nolint:errcheck // the client is gone
}
