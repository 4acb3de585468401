package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
)

// The fault-injection matrix (docs/reliability.md): each fault is one way a
// server or the network can misbehave, run through the whole command tree
// for each way vq talks to a server. Every cell asserts the exit code, what
// the user reads, and that vq returned in time.

// faultTimeout is the --timeout of every faulty call: short, so that slow
// faults end quickly, yet room for an MCP handshake and its call under the
// race detector beside the other cells (300ms timed out a 401's).
const faultTimeout = time.Second

// watchTimeout bounds a whole watch: long enough for its ten failed polls
// on a busy machine, short enough to end slow faults.
const watchTimeout = 2 * time.Second

// deadline is the generous wall-time bound of one run, from its timeout: a
// guard against hangs, not a speed test (calls retry at most once).
func deadline(timeout time.Duration) time.Duration { return 3*timeout + 2*time.Second }

// The columns of the matrix.
const (
	colInvoke = "invoke"
	colMCP    = "mcp"
	colWatch  = "watch"
)

var faultColumns = []string{colInvoke, colMCP, colWatch}

// faultArgs is the command line of each column, without --base-url.
var faultArgs = map[string][]string{
	colInvoke: {"invoke", "get_run_failures", "runId=run_1", "--timeout", faultTimeout.String()},
	colMCP:    {"invoke", "get_run_failures", "runId=run_1", "--transport", "mcp", "--timeout", faultTimeout.String()},
	// --no-retry and a short interval keep the watch's ten failed polls
	// fast; the watch's own bound is the --timeout given.
	colWatch: {"watch", "job_1", "--no-retry", "--interval", "10ms", "--wait-timeout", watchTimeout.String()},
}

// outcome is what the user sees in one cell: the exit code, lines stderr
// must hold, and stdout exactly.
type outcome struct {
	exit   int
	stderr []string
	stdout string
}

// fault misbehaves in place of the answer to a tool call. wrap turns a
// ToolResponse into the bytes the transport carries it in (itself for
// invoke, a JSON-RPC result for MCP).
type fault struct {
	name   string
	answer func(w http.ResponseWriter, r *http.Request, wrap func(string) string)
	// everyRequest applies the fault to MCP's handshake too: an auth
	// gateway or a redirect stands before the whole endpoint.
	everyRequest bool
	// refused replaces the server by an address nobody listens on.
	refused bool
	want    map[string]outcome
}

const secretKey = "vqs_fault_secret_key_0123"

func TestFaultMatrix(t *testing.T) {
	t.Parallel()
	for _, fl := range faults() {
		for _, col := range faultColumns {
			want, ok := fl.want[col]
			if !ok {
				continue
			}
			t.Run(fl.name+"/"+col, func(t *testing.T) {
				t.Parallel()
				base, other := faultServer(t, fl, col == colMCP)
				env := map[string]string{"VQ_BASE_URL": base, "VQ_API_KEY": secretKey}
				start := time.Now()
				stdout, stderr, exit := runVQ(t, env, faultArgs[col]...)
				elapsed := time.Since(start)
				t.Logf("exit %d in %s\nstdout: %q\nstderr: %q", exit, elapsed.Round(time.Millisecond), stdout, stderr)
				limit := deadline(faultTimeout)
				if col == colWatch {
					limit = deadline(watchTimeout)
				}
				if elapsed > limit {
					t.Errorf("returned after %s, more than %s", elapsed, limit)
				}
				if exit != want.exit {
					t.Errorf("exit %d, want %d\nstdout %q\nstderr %q", exit, want.exit, stdout, stderr)
				}
				if stdout != want.stdout {
					t.Errorf("stdout %q, want %q", stdout, want.stdout)
				}
				for _, s := range want.stderr {
					if !strings.Contains(stderr, s) {
						t.Errorf("stderr lacks %q:\n%s", s, stderr)
					}
				}
				for _, s := range []string{stdout, stderr} {
					if strings.Contains(s, secretKey) {
						t.Errorf("the API key was shown: %q", s)
					}
					if strings.ContainsAny(s, "\x1b\u009b\u202e") {
						t.Errorf("terminal control characters reached the user: %q", s)
					}
				}
				if other != nil && other.Count() != 0 {
					t.Errorf("the other host received %d requests", other.Count())
				}
			})
		}
	}
}

// faultServer serves the fault for one column and returns its base URL,
// and the other host a redirect may point to.
func faultServer(t *testing.T, fl fault, mcp bool) (string, *testkit.Server) {
	t.Helper()
	if fl.refused {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr, nil
	}
	other := testkit.NewServer(t, testkit.Always(200, ""))
	// The other host is the same loopback under another name and port, as a
	// redirect to an attacker's host would be.
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	// testkit reads the request first: only then does the server notice a
	// client that hangs up, which ends the slow faults.
	s := testkit.Wrap(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(context.WithValue(r.Context(), otherKey{}, otherURL))
		if !mcp {
			fl.answer(w, r, func(tr string) string { return tr })
			return
		}
		serveMCPStub(w, r, fl)
	}))
	return s.URL, other
}

// serveMCPStub speaks just enough MCP (initialize, notifications, session
// end) for vq to reach tools/call, where the fault answers.
func serveMCPStub(w http.ResponseWriter, r *http.Request, fl fault) {
	if r.Method == http.MethodDelete {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(body, &msg)
	wrap := func(tr string) string {
		var summary struct {
			Summary string `json:"summary"`
		}
		json.Unmarshal([]byte(tr), &summary)
		text, _ := json.Marshal(summary.Summary)
		return `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"content":[{"type":"text","text":` + string(text) + `}],"structuredContent":` + tr + `}}`
	}
	switch {
	case msg.Method == "tools/call" || fl.everyRequest:
		fl.answer(w, r, wrap)
	case msg.ID == nil:
		w.WriteHeader(http.StatusAccepted)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "stub-session")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"stub","version":"1"}}}`, msg.ID, "2025-11-25")
	}
}

type otherKey struct{}

// otherFrom is the URL of the other host, for the redirect fault.
func otherFrom(ctx context.Context) string {
	url, _ := ctx.Value(otherKey{}).(string)
	return url
}

// answerJSON writes a status and a body as JSON.
func answerJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// hijack takes the raw connection, writes a response head and hands the
// connection to fn.
func hijack(w http.ResponseWriter, head string, fn func(net.Conn, *bufio.ReadWriter)) {
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	rw.WriteString(head)
	rw.Flush()
	fn(conn, rw)
}

// trickle writes b a byte at a time until the client goes away: the
// slow-loris.
func trickle(w http.ResponseWriter, r *http.Request, b string) {
	rc := http.NewResponseController(w)
	for i := 0; ; i++ {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
		if _, err := io.WriteString(w, b[i%len(b):i%len(b)+1]); err != nil || rc.Flush() != nil {
			return
		}
	}
}

// okResponse is a successful answer whose summary and data hold s.
func okResponse(summary string, data string) string {
	return testkit.OK("get_run_failures", summary, json.RawMessage(data))
}

// jobDone is get_job_status of a completed job, for the watch column.
func jobDone(summary string) string {
	return okResponse(summary, `{"jobId":"job_1","status":"completed"}`)
}

// errLine is the error line a response failure ends with.
func errLine(exit int, recoverable bool) string {
	r := "recoverable"
	if !recoverable {
		r = "not recoverable"
	}
	return fmt.Sprintf("(%s, exit %d)", r, exit)
}

// every is the same outcome in each column.
func every(o outcome) map[string]outcome {
	return map[string]outcome{colInvoke: o, colMCP: o, colWatch: o}
}

func faults() []fault {
	httpError := func(stderr ...string) outcome {
		return outcome{exit: 20, stderr: append(stderr, "error: http_error: ", errLine(20, true))}
	}
	cut := httpError("connection cut before the answer was complete")
	timedOut := httpError("request timed out (raise --timeout if the server is slow)")
	watchTimedOut := outcome{exit: exitcode.Timeout, stderr: []string{"job job_1 still unfinished after 2s; it may still finish", "to resume: vq watch job_1"}}
	unauthorized := outcome{exit: exitcode.Unauthorized, stderr: []string{"error: unauthorized: the server did not accept the credential (HTTP 401); sign in with: vq auth login"}}
	odd401 := func(name string, headers ...string) fault {
		return fault{
			name: name,
			answer: func(w http.ResponseWriter, r *http.Request, _ func(string) string) {
				for _, h := range headers {
					w.Header().Add("WWW-Authenticate", h)
				}
				answerJSON(w, http.StatusUnauthorized, `{"error":"unauthorized"}`)
			},
			everyRequest: true,
			want:         every(unauthorized),
		}
	}
	return []fault{
		{
			name: "non-JSON 5xx",
			answer: func(w http.ResponseWriter, r *http.Request, _ func(string) string) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusBadGateway)
				io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1>\x1b[2J</body></html>")
			},
			want: map[string]outcome{
				colInvoke: httpError("get_run_failures: http_error, retrying once", "HTTP 502 Bad Gateway: 502 Bad Gateway"),
				colMCP:    httpError("get_run_failures: http_error, retrying once", "HTTP 502 Bad Gateway from "),
				colWatch:  httpError("HTTP 502 Bad Gateway: 502 Bad Gateway"),
			},
		},
		{
			name: "empty body",
			answer: func(w http.ResponseWriter, r *http.Request, _ func(string) string) {
				answerJSON(w, http.StatusOK, "")
			},
			want: map[string]outcome{
				colInvoke: httpError("HTTP 200 OK with an empty body"),
				colMCP:    httpError(),
				colWatch:  httpError("HTTP 200 OK with an empty body"),
			},
		},
		{
			name: "truncated JSON",
			answer: func(w http.ResponseWriter, r *http.Request, wrap func(string) string) {
				b := wrap(okResponse("all good", "null"))
				answerJSON(w, http.StatusOK, b[:len(b)/2])
			},
			want: map[string]outcome{
				colInvoke: httpError(`HTTP 200 OK: {"ok":true,`),
				colMCP:    httpError(),
				colWatch:  httpError(`HTTP 200 OK: {"ok":true,`),
			},
		},
		{
			name: "body stops mid-stream",
			answer: func(w http.ResponseWriter, r *http.Request, wrap func(string) string) {
				b := wrap(okResponse("all good", "null"))
				hijack(w, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(b)), func(c net.Conn, rw *bufio.ReadWriter) {
					rw.WriteString(b[:len(b)/2])
					rw.Flush()
					c.Close()
				})
			},
			want: every(cut),
		},
		{
			name:    "connection refused",
			refused: true,
			want:    every(httpError("connection to http://127.0.0.1:", "failed: connection refused")),
		},
		{
			name: "reset after headers",
			answer: func(w http.ResponseWriter, r *http.Request, _ func(string) string) {
				hijack(w, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n", func(c net.Conn, _ *bufio.ReadWriter) {
					c.(*net.TCPConn).SetLinger(0)
					c.Close()
				})
			},
			want: every(httpError("connection to http://127.0.0.1:", "failed: connection reset by peer")),
		},
		{
			name: "slow headers",
			answer: func(w http.ResponseWriter, r *http.Request, _ func(string) string) {
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
			},
			want: map[string]outcome{colInvoke: timedOut, colMCP: timedOut, colWatch: watchTimedOut},
		},
		{
			name: "slow body",
			answer: func(w http.ResponseWriter, r *http.Request, wrap func(string) string) {
				w.Header().Set("Content-Type", "application/json")
				trickle(w, r, wrap(okResponse("all good", "null")))
			},
			want: map[string]outcome{colInvoke: timedOut, colMCP: timedOut, colWatch: watchTimedOut},
		},
		{
			name: "429 storm",
			answer: func(w http.ResponseWriter, r *http.Request, wrap func(string) string) {
				// Over MCP a VisualQ server refuses inside a tool result
				// (HTTP 200); HTTP 429 from a gateway carries only a
				// Retry-After in whole seconds (api tests cover it).
				status := http.StatusOK
				if strings.HasSuffix(r.URL.Path, "/invoke") {
					status = http.StatusTooManyRequests
				}
				answerJSON(w, status, wrap(testkit.RateLimit("get_run_failures", "slow down", 20)))
			},
			want: map[string]outcome{
				colInvoke: {exit: 15, stderr: []string{"get_run_failures: rate limited, retrying in 20ms", "error: rate_limit: slow down (recoverable, exit 15)"}, stdout: ""},
				colMCP:    {exit: 15, stderr: []string{"get_run_failures: rate limited, retrying in 20ms", "error: rate_limit: slow down (recoverable, exit 15)"}},
				// A watch waits out rate limits as the client does, at most
				// 10 in a row, then ends with the server's answer.
				colWatch: {exit: 15, stderr: []string{"job_1: rate_limit: slow down", "error: rate_limit: slow down (recoverable, exit 15)"}, stdout: ""},
			},
		},
		{
			name: "invalid UTF-8",
			answer: func(w http.ResponseWriter, r *http.Request, wrap func(string) string) {
				answerJSON(w, http.StatusOK, wrap(jobDone("bad \xff\xfe bytes")))
			},
			want: map[string]outcome{
				colInvoke: {exit: 0, stdout: "✓ bad \uFFFD\uFFFD bytes\njobId   job_1\nstatus  completed\n"},
				colMCP:    {exit: 0, stdout: "✓ bad \uFFFD\uFFFD bytes\njobId   job_1\nstatus  completed\n"},
				colWatch:  {exit: 0, stdout: "✓ bad \uFFFD\uFFFD bytes\njobId   job_1\nstatus  completed\n"},
			},
		},
		{
			name: "JSON nested 100k deep",
			answer: func(w http.ResponseWriter, r *http.Request, wrap func(string) string) {
				answerJSON(w, http.StatusOK, wrap(okResponse("deep", strings.Repeat("[", 100_000)+strings.Repeat("]", 100_000))))
			},
			want: map[string]outcome{
				colInvoke: httpError("HTTP 200 OK: "),
				colMCP:    httpError(),
				colWatch:  httpError("HTTP 200 OK: "),
			},
		},
		{
			name: "ToolResponse with wrong types",
			answer: func(w http.ResponseWriter, r *http.Request, wrap func(string) string) {
				answerJSON(w, http.StatusOK, wrap(`{"ok":"yes","tool":"get_run_failures","summary":"typed wrong","nextActions":{}}`))
			},
			want: map[string]outcome{
				colInvoke: httpError(`HTTP 200 OK: {"ok":"yes",`),
				// Over MCP a structuredContent shaped as a ToolResponse (ok
				// and tool) is one, malformed: never an ok by isError.
				colMCP:   httpError(`the MCP result's structuredContent is a malformed ToolResponse (json: cannot unmarshal string into Go struct field .ok of type bool): {"ok":"yes",`),
				colWatch: httpError(`HTTP 200 OK: {"ok":"yes",`),
			},
		},
		{
			name: "redirect to another host",
			answer: func(w http.ResponseWriter, r *http.Request, _ func(string) string) {
				http.Redirect(w, r, otherFrom(r.Context())+r.URL.Path, http.StatusTemporaryRedirect)
			},
			everyRequest: true,
			want:         every(httpError("refused redirect to another host (localhost:")),
		},
		odd401("401 with an empty WWW-Authenticate", ""),
		odd401("401 with a garbage WWW-Authenticate", "garbage ===,,, \"resource_metadata= '\"\\"),
		{
			name: "control characters in WWW-Authenticate",
			answer: func(w http.ResponseWriter, r *http.Request, _ func(string) string) {
				w.Header().Set("WWW-Authenticate", "Bearer \x00\x1b]0;owned\x07")
				answerJSON(w, http.StatusUnauthorized, "")
			},
			everyRequest: true,
			// Not HTTP any more: Go's client refuses the response.
			want: every(httpError("malformed MIME header line")),
		},
		odd401("401 with a huge WWW-Authenticate", "Bearer realm=\""+strings.Repeat("a", 64<<10)+"\""),
		odd401("401 with several challenges", `Basic realm="x"`, `Bearer error="invalid_token", resource_metadata="https://vq.example/.well-known/oauth-protected-resource"`),
		// Found by FuzzAuthParam: a non-UTF-8 byte before the parameter
		// name once made vq panic.
		odd401("401 with a non-UTF-8 WWW-Authenticate", "\x80resourCe_metAdAtA=\x80"),
		odd401("401 with an unterminated quote", `Bearer resource_metadata="https://vq.example/unterminated`),
		{
			name: "403 with an odd WWW-Authenticate",
			answer: func(w http.ResponseWriter, r *http.Request, _ func(string) string) {
				w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="\u202e`)
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(http.StatusForbidden)
				io.WriteString(w, "Forbidden \u202egnp.exe")
			},
			everyRequest: true,
			want: map[string]outcome{
				colInvoke: httpError("HTTP 403 Forbidden: Forbidden <U+202E>gnp.exe"),
				// Over MCP the challenge is read (RFC 6750): a token short of
				// scope, whose unreadable scope is left unnamed.
				colMCP: {exit: 33, stderr: []string{"error: scope_denied: the server needs more scope than the token has (HTTP 403 insufficient_scope from ",
					"; sign in again to be granted it: vq auth login --oauth (server 127.0.0.1:", "; API key from VQ_API_KEY) (not recoverable, exit 33)"}},
				colWatch: httpError("HTTP 403 Forbidden: Forbidden <U+202E>gnp.exe"),
			},
		},
	}
}
