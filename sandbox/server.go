package sandbox

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"time"
)

// Options tune a sandbox. The zero value is a well-behaved server on a free
// local port.
type Options struct {
	// Addr is where Start listens; default 127.0.0.1:0 (a free port).
	Addr string
	// Latency is added to every request, to make spinners and timeouts visible.
	Latency time.Duration
	// FailRate is the fraction (0..1) of requests answered 502 with an HTML
	// body, as a gateway in front of the service would.
	FailRate float64
	// Rate is the token-bucket refill per API key, in requests per second.
	// 0 means 20/s; a negative rate disables the limiter.
	Rate float64
	// Burst is the bucket size; 0 means twice the rate (at least 1).
	Burst int
	// JobStep is how long each step of an async job takes; default 700ms,
	// so a proof takes a few seconds. Tests set it small.
	JobStep time.Duration
}

const (
	defaultAddr    = "127.0.0.1:0"
	defaultRate    = 20
	defaultJobStep = 700 * time.Millisecond
	// shutdownGrace bounds how long Close waits for requests in flight.
	shutdownGrace = 5 * time.Second
)

// Server is one sandbox with its own state: approvals, created scenarios and
// jobs are never shared between Servers.
type Server struct {
	opts      Options
	handler   http.Handler
	limiter   *rateLimiter
	runs      map[string]*run
	scenarios *scenarioStore
	jobs      *jobStore
	ci        ciState // CI runs; its lock also guards runs, which they join (ci.go)

	httpServer *http.Server
	url        string
	drain      func() // Close waits for it: a recording's exchanges in flight
}

// New makes a Server without listening; serve its Handler yourself (e.g.
// with httptest.NewServer) or call Start instead.
func New(opts Options) *Server {
	if opts.Addr == "" {
		opts.Addr = defaultAddr
	}
	if opts.Rate == 0 {
		opts.Rate = defaultRate
	}
	if opts.JobStep <= 0 {
		opts.JobStep = defaultJobStep
	}
	s := &Server{
		opts:      opts,
		limiter:   newRateLimiter(opts.Rate, opts.Burst),
		runs:      seedRuns(),
		scenarios: seedScenarios(),
		jobs:      newJobStore(),
		ci:        ciState{runs: map[string]*ciRun{}, keys: map[string]keyedStart{}},
	}
	mux := http.NewServeMux()
	// No method in the pattern: a GET must get the contract's 400, not a 405.
	mux.HandleFunc("/api/mcp/v1/invoke", s.serveInvoke)
	mux.HandleFunc("/api/ci/{tool}", s.serveCI)
	s.mountMCP(mux) // /api/mcp, its OAuth metadata and authorization server (mcp.go, oauth.go)
	mux.HandleFunc("GET /sandbox/images/{runId}/{scenario}/{viewport}/{file}", s.serveImage)
	s.handler = s.withFaults(mux)
	return s
}

// Start makes a Server and serves it on opts.Addr in the background.
func Start(opts Options) (*Server, error) { return New(opts).listen() }

// listen serves s on its Addr in the background.
func (s *Server) listen() (*Server, error) {
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("sandbox: listen on %s: %w", s.opts.Addr, err)
	}
	s.url = "http://" + dialableAddr(ln.Addr())
	s.httpServer = &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	go s.httpServer.Serve(ln) //nolint:errcheck // Serve always ends with ErrServerClosed after Close.
	return s, nil
}

// Handler serves the whole sandbox: invoke endpoint and images.
func (s *Server) Handler() http.Handler { return s.handler }

// URL is the base URL of a started Server (e.g. http://127.0.0.1:43121),
// "" for one made with New.
func (s *Server) URL() string { return s.url }

// Close stops a started Server, letting requests in flight finish for a few
// seconds. It is a no-op for a Server made with New.
func (s *Server) Close() error {
	if s.httpServer == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := s.httpServer.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.httpServer.Close()
	}
	if s.drain != nil {
		s.drain()
	}
	return err
}

// dialableAddr turns a listener address into one a client can dial: a
// server listening on every interface (":8080") is reached on localhost.
func dialableAddr(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return addr.String()
	}
	return net.JoinHostPort("localhost", fmt.Sprint(tcp.Port))
}

// withFaults applies the injected latency and gateway failures in front of
// every route, where a real proxy would.
func (s *Server) withFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Latency > 0 {
			timer := time.NewTimer(s.opts.Latency)
			defer timer.Stop()
			select {
			case <-timer.C:
			case <-r.Context().Done():
				return
			}
		}
		if s.opts.FailRate > 0 && rand.Float64() < s.opts.FailRate {
			writeBadGateway(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}

const badGatewayPage = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx</center>
</body>
</html>
`

func writeBadGateway(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprint(w, badGatewayPage)
}
