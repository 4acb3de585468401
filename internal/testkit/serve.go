package testkit

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Serve serves handler on a loopback port until the test ends; the
// goroutines it starts are the test's (NoLeaks).
func Serve(t testing.TB, handler http.Handler) *httptest.Server {
	t.Helper()
	NoLeaks(t)
	s := httptest.NewServer(handler)
	t.Cleanup(s.Close)
	return s
}

// ServeMCP serves server over streamable HTTP (opts may be nil) until the
// test ends, and returns its endpoint. A session still open at the server
// once the test is done fails it: vq ends every session it opened (a
// stateless server's are its own, one a request, and ended by it).
func ServeMCP(t testing.TB, server *mcp.Server, opts *mcp.StreamableHTTPOptions) string {
	t.Helper()
	NoLeaks(t)
	s := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts))
	t.Cleanup(func() {
		open := 0
		for ss := range server.Sessions() {
			open++
			ss.Close()
		}
		if open > 0 && (opts == nil || !opts.Stateless) {
			t.Errorf("%d MCP session(s) still open at the server after the test: vq ends every session it opens", open)
		}
		s.Close()
	})
	return s.URL
}
