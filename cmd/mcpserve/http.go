package mcpserve

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/privatefile"
	"golang.org/x/sync/semaphore"
)

// checkHTTP refuses what --http and --token-file cannot serve, before anything
// starts: a token without --http, an address beyond loopback without a token.
// An address without a host is loopback's.
func (o *ServeOptions) checkHTTP() error {
	if o.HTTP == "" {
		if o.TokenFile != "" {
			return exitcode.Usagef("--token-file applies only with --http")
		}
		return nil
	}
	host, port, err := net.SplitHostPort(o.HTTP)
	if err != nil {
		return exitcode.Usagef("--http %s is not HOST:PORT (e.g. 127.0.0.1:8788)", o.HTTP)
	}
	if host == "" {
		o.HTTP = net.JoinHostPort("127.0.0.1", port)
	} else if !cmdutil.IsLoopback(host) && o.TokenFile == "" {
		return &exitcode.UsageError{
			Reason: fmt.Sprintf("--http %s is not a loopback address: serving other machines needs --token-file FILE, the token their requests must carry", o.HTTP),
			Hint:   "to serve this machine only: --http 127.0.0.1:" + port,
		}
	}
	return nil
}

// maxTokenFile bounds the token file read.
const maxTokenFile = 64 << 10

// token is --token-file's token, read as vq's own files are; "" without one.
func (o *ServeOptions) token() (string, error) {
	if o.TokenFile == "" {
		return "", nil
	}
	b, err := privatefile.Read(o.TokenFile, maxTokenFile)
	if err != nil {
		return "", exitcode.Usagef("--token-file: %v", err)
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", exitcode.Usagef("--token-file %s is empty: it must hold the token agents send", o.TokenFile)
	}
	return token, nil
}

// serveHTTP serves the tools over MCP's streamable HTTP transport at /mcp, one
// MCP session per agent, until ctx ends; then every call is ended (call), its
// request cancelled upstream, and the sessions closed.
func (s *agentServer) serveHTTP(ctx context.Context, addr, token string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.shares.of = map[*mcp.ServerSession]*sessionShare{}
	mux := http.NewServeMux()
	mux.Handle("/mcp", guard(token, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.server }, nil)))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(s.factory.IOStreams.Out, "vq mcp serve listening on http://%s/mcp\n", ln.Addr())
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Shutdown(grace) }()
	for ss := range s.server.Sessions() {
		ss.Close() // once its calls, ended with ctx, are answered
	}
	if <-stopped != nil {
		srv.Close()
	}
	s.logf("stopped")
	return nil
}

// guard answers 403 to a request from a web page not of this machine (an
// Origin that is not loopback: DNS rebinding), and 401 to one without the
// token when there is one; the SDK's handler refuses a Host not of this
// machine on a loopback connection.
func guard(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" {
			u, err := url.Parse(origin)
			if err != nil || !cmdutil.IsLoopback(u.Hostname()) {
				http.Error(w, "Forbidden: requests from web pages of other hosts are refused", http.StatusForbidden)
				return
			}
		}
		if token != "" {
			scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
			if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				w.Header().Set("WWW-Authenticate", "Bearer")
				http.Error(w, "Unauthorized: send Authorization: Bearer and the token of vq mcp serve's --token-file", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// shareKey holds a call's session share (sessionShares.join) in its context.
type shareKey struct{}

// sessionShares are the HTTP sessions' parts of the requests in flight: a
// session may hold at most half of them, so that no session holds them all
// and the others still get theirs. Over stdio (of nil) there is one session
// and no share.
type sessionShares struct {
	mu sync.Mutex
	of map[*mcp.ServerSession]*sessionShare
}

type sessionShare struct {
	turns *semaphore.Weighted
	calls int // calls of the session running; the share goes with the last
}

// join is the share of ss for one of its calls, and the leave of that call.
func (s *sessionShares) join(ss *mcp.ServerSession) (*semaphore.Weighted, func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.of == nil {
		return nil, func() {}
	}
	share := s.of[ss]
	if share == nil {
		share = &sessionShare{turns: semaphore.NewWeighted(maxBackendCalls / 2)}
		s.of[ss] = share
	}
	share.calls++
	return share.turns, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if share.calls--; share.calls == 0 {
			delete(s.of, ss)
		}
	}
}
