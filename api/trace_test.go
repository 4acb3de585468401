package api

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/visualq/vq/internal/testkit"
)

// rawServer answers every request with the bytes of head and body as they
// are, so a test can send what net/http would not: a hostile reason
// phrase, header values with escapes.
func rawServer(t *testing.T, head, body string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				req.Body.Close()
				fmt.Fprintf(c, "%sContent-Length: %d\r\nConnection: close\r\n\r\n%s", head, len(body), body)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// --debug shows server text as every other server text is shown: the
// reason phrase, header values and bodies are sanitized, so a trace can
// neither set the terminal's title nor write its clipboard, nor hide or
// reorder what a person reads.
func TestDebugTraceSanitizesServerText(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	body := "{\"ok\":true,\"tool\":\"t\",\"summary\":\"a\u202egnp.exe\u200b\",\"data\":null,\"warnings\":[],\"nextActions\":[]}"
	base := rawServer(t, "HTTP/1.1 200 OK\x1b]0;pwned\x07\x1b]52;c;Zm9v\x07\r\nMcp-Session-Id: s\xe2\x80\xaex\r\nX-Note: \xe2\x80\xaeevil\r\nContent-Type: application/json\r\n", body)
	var trace bytes.Buffer
	c := New(Options{BaseURL: base, APIKey: "vqs_secret_key_1", Debug: &trace})
	c.Invoke(ctx, Call{Tool: "t"})
	out := trace.String()
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u200b"} {
		if strings.Contains(out, bad) {
			t.Errorf("trace carries %q:\n%q", bad, out)
		}
	}
	if strings.Contains(out, "pwned") || strings.Contains(out, "Zm9v") {
		t.Errorf("trace carries the reason phrase's sequences:\n%s", out)
	}
	for _, want := range []string{"< 200 OK in ", "X-Note: <U+202E>evil", "Mcp-Session-Id: [redacted]", `a<U+202E>gnp.exe<U+200B>`} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
}

// Redaction covers the forms a credential takes in a trace: JSON members of
// every credential name, members inside an escaped JSON string, a value the
// trace limit cut before its end, and the configured key cut the same way.
func TestDebugRedactionCoversEveryForm(t *testing.T) {
	t.Parallel()
	tr := &tracer{secrets: []string{"my-very-secret-key"}}
	for _, tc := range []struct{ in, secret string }{
		{`{"sessionId":"s3ss10n"}`, "s3ss10n"},
		{`{"cookie":"c00kie"}`, "c00kie"},
		{`{"x-api-key":"xk3y"}`, "xk3y"},
		{`{"credentials":"cr3ds"}`, "cr3ds"},
		{`{"privateKey":"-----BEGIN pr1v"}`, "pr1v"},
		{`{"bearer":"b34rer"}`, "b34rer"},
		{`{"clientSecret":"cl13nt"}`, "cl13nt"},
		{`{"text":"{\"apiKey\":\"esc4ped\"}"}`, "esc4ped"},
		{`{"token":"abc\u0041def"}`, "def"},
		{`{"data":{"refresh_token":"cut-sh0rt`, "cut-sh0rt"},
		{`{"note":"my-very-sec`, "my-very-sec"},
	} {
		if out := tr.redact([]byte(tc.in)); strings.Contains(out, tc.secret) {
			t.Errorf("redact(%s) = %s: shows %s", tc.in, out, tc.secret)
		}
	}
	if out := tr.redact([]byte(`{"runId":"run_abc","total":12}`)); out != `{"runId":"run_abc","total":12}` {
		t.Errorf("redacted what is no credential: %s", out)
	}
}

// A URL's password is never printed: not in the trace, not in an error.
func TestURLPasswordIsNeverPrinted(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	var trace bytes.Buffer
	c := New(Options{BaseURL: "http://user:hunter2@127.0.0.1:1", APIKey: "vqs_key_0123", Debug: &trace, NoRetry: true})
	resp, _ := c.Invoke(ctx, Call{Tool: "t"})
	if strings.Contains(trace.String(), "hunter2") || strings.Contains(resp.ErrorMessage(), "hunter2") {
		t.Errorf("password shown:\ntrace: %s\nerror: %s", trace.String(), resp.ErrorMessage())
	}
}
