package api

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// traceBodyBytes is how much of each body --debug shows.
const traceBodyBytes = 4096

// tracer is the --debug round tripper: method, URL, status, timing and the
// start of each body, with every credential redacted before it is written.
type tracer struct {
	next   http.RoundTripper
	w      io.Writer
	secret string
	mu     sync.Mutex
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
	t.printf("> %s %s\n", req.Method, req.URL.Redacted())
	for name, values := range req.Header {
		for _, v := range values {
			t.printf("> %s: %s\n", name, redactHeader(name, v))
		}
	}
	if len(reqBody) > 0 {
		t.printf("> %s\n", t.redact(reqBody))
	}
	res, err := t.next.RoundTrip(req)
	elapsed := time.Since(start).Round(time.Microsecond)
	if err != nil {
		t.printf("< error after %s: %s\n", elapsed, t.redact([]byte(err.Error())))
		return nil, err
	}
	t.printf("< %s in %s\n", res.Status, elapsed)
	head, _ := io.ReadAll(io.LimitReader(res.Body, traceBodyBytes))
	res.Body = readCloser{io.MultiReader(bytes.NewReader(head), res.Body), res.Body}
	if len(head) > 0 {
		more := ""
		if len(head) == traceBodyBytes {
			more = " …"
		}
		t.printf("< %s%s\n", t.redact(head), more)
	}
	return res, nil
}

func (t *tracer) printf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.w, format, args...)
}

type readCloser struct {
	io.Reader
	io.Closer
}

func redactHeader(name, value string) string {
	switch strings.ToLower(name) {
	case "authorization", "cookie", "x-api-key", "proxy-authorization":
		if scheme, _, ok := strings.Cut(value, " "); ok {
			return scheme + " [redacted]"
		}
		return "[redacted]"
	}
	return value
}

// secretFields matches JSON members whose values are credentials.
var secretFields = lazyRegexp(`(?i)("(?:[a-z_]*api_?key|[a-z_]*token|password|secret|client_secret|authorization|code_verifier)"\s*:\s*")[^"]*(")`)

// secretParams matches credentials in form-encoded bodies (OAuth token
// requests): code=…, code_verifier=…, client_secret=…, refresh_token=….
var secretParams = lazyRegexp(`(?i)(^|[&?])((?:code|code_verifier|client_secret|refresh_token|access_token|assertion|password)=)[^&\s]*`)

// keyLike matches strings shaped like VisualQ or bearer keys even where no
// field name gives them away.
var keyLike = lazyRegexp(`\b(?:vqs?_[A-Za-z0-9_]{4,}|sk-[A-Za-z0-9_-]{8,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_.-]+)`)

// redact removes the configured secret and anything key-like from traced
// bytes and makes control characters visible, so a trace is safe to paste.
func (t *tracer) redact(b []byte) string {
	s := string(b)
	if t.secret != "" {
		s = strings.ReplaceAll(s, t.secret, "[redacted]")
	}
	s = secretFields().ReplaceAllString(s, "${1}[redacted]${2}")
	s = secretParams().ReplaceAllString(s, "${1}${2}[redacted]")
	s = keyLike().ReplaceAllString(s, "[redacted]")
	return strings.Map(func(r rune) rune {
		if r < ' ' && r != '\n' && r != '\t' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// lazyRegexp compiles expr on first use: most runs never redact or read a
// readiness phrase, and compiling at start-up would cost every run.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
