package api

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/visualq/vq/internal/textsafe"
)

const traceBodyBytes = 4096

// tracer is the --debug round tripper, redacting every credential.
type tracer struct {
	next    http.RoundTripper
	w       io.Writer
	secrets []string // the API key and the --header values
	mu      sync.Mutex
}

func (t *tracer) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	var reqBody []byte
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			reqBody, _ = io.ReadAll(io.LimitReader(rc, traceBodyBytes))
			rc.Close()
		}
	}
	t.printf("> %s %s\n", req.Method, t.redact([]byte(req.URL.Redacted())))
	t.headers(">", req.Header)
	if len(reqBody) > 0 {
		t.printf("> %s\n", t.redact(reqBody))
	}
	res, err := t.next.RoundTrip(req)
	elapsed := time.Since(start).Round(time.Microsecond)
	if err != nil {
		t.printf("< error after %s: %s\n", elapsed, t.redact([]byte(err.Error())))
		return nil, err
	}
	// The reason phrase and the headers are the server's text too.
	t.printf("< %s in %s\n", t.redact([]byte(res.Status)), elapsed)
	t.headers("<", res.Header)
	res.Body = &tracedBody{ReadCloser: res.Body, t: t}
	return res, nil
}

// tracedBody traces as its reader reads (reading ahead would stall MCP streams).
type tracedBody struct {
	io.ReadCloser
	t       *tracer
	head    []byte
	written bool
}

func (b *tracedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if !b.written {
		b.head = append(b.head, p[:min(n, traceBodyBytes-len(b.head))]...)
		if len(b.head) == traceBodyBytes || err != nil {
			b.write()
		}
	}
	return n, err
}

func (b *tracedBody) Close() error {
	b.write()
	return b.ReadCloser.Close()
}

func (b *tracedBody) write() {
	if b.written {
		return
	}
	b.written = true
	if len(b.head) == 0 {
		return
	}
	more := ""
	if len(b.head) == traceBodyBytes {
		more = " …"
	}
	b.t.printf("< %s%s\n", b.t.redact(b.head), more)
}

// headers traces each header, redacted, in name order so traces compare.
func (t *tracer) headers(dir string, h http.Header) {
	for _, name := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[name] {
			t.printf("%s %s: %s\n", dir, t.redact([]byte(name)), t.redact([]byte(redactHeader(name, v))))
		}
	}
}

func (t *tracer) printf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.w, format, args...)
}

func redactHeader(name, value string) string {
	switch strings.ToLower(name) {
	case "authorization", "cookie", "set-cookie", "x-api-key", "proxy-authorization", "mcp-session-id":
		if scheme, _, ok := strings.Cut(value, " "); ok {
			return scheme + " [redacted]"
		}
		return "[redacted]"
	}
	return value
}

// secretFields matches credential members, even in strings and cut short.
var secretFields = lazyRegexp(`(?i)(\\*"(?:[a-z_-]*api[_-]?key|[a-z_]*token|password|[a-z_]*secret|authorization|code_verifier|session_?id|cookie|credentials?|private_?key|bearer)\\*"\s*:\s*\\*")(?:[^"\\]|\\[^"])*`)

// secretParams matches credentials in form-encoded bodies (OAuth token requests).
var secretParams = lazyRegexp(`(?i)(^|[&?])((?:code|code_verifier|client_secret|refresh_token|access_token|assertion|password)=)[^&\s]*`)

// keyLike matches strings shaped like VisualQ or bearer keys.
var keyLike = lazyRegexp(`\b(?:vqs?_[A-Za-z0-9_]{4,}|sk-[A-Za-z0-9_-]{8,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_.-]+)`)

// redact strips secrets and sanitizes, so a trace is safe to show and paste.
func (t *tracer) redact(b []byte) string {
	s := string(b)
	for _, secret := range t.secrets {
		if secret == "" {
			continue
		}
		s = strings.ReplaceAll(s, secret, "[redacted]")
		// A body cut at the trace limit may end in the secret's start.
		for n := len(secret) - 1; n >= 3; n-- {
			if cut, found := strings.CutSuffix(s, secret[:n]); found {
				s = cut + "[redacted]"
				break
			}
		}
	}
	s = secretFields().ReplaceAllString(s, "${1}[redacted]")
	s = secretParams().ReplaceAllString(s, "${1}${2}[redacted]")
	s = keyLike().ReplaceAllString(s, "[redacted]")
	return textsafe.Sanitize(s)
}

// lazyRegexp compiles expr on first use, not at every run's start-up.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
