package testkit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// DefaultKey is the API key Env gives unless Server.Key says otherwise.
const DefaultKey = "vqs_test"

// Call is one request a Server received.
type Call struct {
	Method, Path string
	Header       http.Header
	// Raw is the body as it arrived; Body is it decoded (numbers as
	// json.Number), nil when it is not a JSON object.
	Raw  []byte
	Body map[string]any
	// Tool and Args are the call: the body's "tool" and "args" on the
	// invoke endpoint; the tool the path names and the whole body on a CI
	// endpoint (/api/ci/<tool>).
	Tool string
	Args map[string]any
	// CI says the call came to a CI endpoint.
	CI bool
}

func decodeCall(r *http.Request, raw []byte) Call {
	c := Call{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&c.Body) != nil {
		c.Body = nil
	}
	if tool, ok := strings.CutPrefix(r.URL.Path, "/api/ci/"); ok {
		c.Tool, c.Args, c.CI = tool, c.Body, true
		return c
	}
	c.Tool, _ = c.Body["tool"].(string)
	c.Args, _ = c.Body["args"].(map[string]any)
	return c
}

// Reply is an answer: a status (0 is 200), headers and a body.
type Reply struct {
	Status int
	Header map[string]string
	Body   string
}

// Answer is a reply with this status and body.
func Answer(status int, body string) Reply { return Reply{Status: status, Body: body} }

func (a Reply) write(w http.ResponseWriter) {
	for k, v := range a.Header {
		w.Header().Set(k, v)
	}
	if a.Status != 0 {
		w.WriteHeader(a.Status)
	}
	io.WriteString(w, a.Body)
}

// Server is a fake VisualQ server on loopback that records every call it
// receives; it is safe for concurrent use.
type Server struct {
	*httptest.Server
	// Key is the API key Env gives; DefaultKey when empty.
	Key   string
	mu    sync.Mutex
	calls []Call
}

// NewServer answers each call with answer(call), and closes when the test
// ends. answer may be called concurrently.
func NewServer(t testing.TB, answer func(Call) Reply) *Server {
	t.Helper()
	return serve(t, func(w http.ResponseWriter, _ *http.Request, c Call) { answer(c).write(w) })
}

// Wrap records each call and hands the request, its body intact, to next
// (a sandbox's handler, or a test's own misbehaving one).
func Wrap(t testing.TB, next http.Handler) *Server {
	t.Helper()
	return serve(t, func(w http.ResponseWriter, r *http.Request, _ Call) { next.ServeHTTP(w, r) })
}

func serve(t testing.TB, h func(http.ResponseWriter, *http.Request, Call)) *Server {
	s := &Server{}
	s.Server = Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		c := decodeCall(r, raw)
		s.mu.Lock()
		s.calls = append(s.calls, c)
		s.mu.Unlock()
		h(w, r, c)
	}))
	return s
}

// Always answers every call with the same reply.
func Always(status int, body string) func(Call) Reply {
	return func(Call) Reply { return Answer(status, body) }
}

// Script answers the calls with replies in order; the last one repeats.
func Script(replies ...Reply) func(Call) Reply {
	var mu sync.Mutex
	n := 0
	return func(Call) Reply {
		mu.Lock()
		defer mu.Unlock()
		n++
		return replies[min(n, len(replies))-1]
	}
}

// Env is the environment that points vq at the server.
func (s *Server) Env() map[string]string {
	key := s.Key
	if key == "" {
		key = DefaultKey
	}
	return map[string]string{"VQ_BASE_URL": s.URL, "VQ_API_KEY": key}
}

// Calls are the calls received so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// CallsOf are the calls of tool received so far.
func (s *Server) CallsOf(tool string) []Call {
	var of []Call
	for _, c := range s.Calls() {
		if c.Tool == tool {
			of = append(of, c)
		}
	}
	return of
}

// Count is how many calls were received.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// Last is the last call received; the zero Call before any.
func (s *Server) Last() Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.calls) == 0 {
		return Call{}
	}
	return s.calls[len(s.calls)-1]
}

// Tools are the tools of the calls received, in order.
func (s *Server) Tools() []string {
	var tools []string
	for _, c := range s.Calls() {
		tools = append(tools, c.Tool)
	}
	return tools
}

// InvokedTools are the tools the invoke endpoint was called with, in
// order, joined by commas.
func (s *Server) InvokedTools() string {
	var names []string
	for _, c := range s.InvokedCalls("") {
		names = append(names, c.Tool)
	}
	return strings.Join(names, ",")
}

// InvokedCalls are the invoke endpoint's calls of tool, or all of them
// for "".
func (s *Server) InvokedCalls(tool string) []Call {
	var calls []Call
	for _, c := range s.Calls() {
		if c.Path == "/api/mcp/v1/invoke" && (tool == "" || c.Tool == tool) {
			calls = append(calls, c)
		}
	}
	return calls
}
