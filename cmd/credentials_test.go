package cmd

import (
	"strings"
	"testing"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

func TestDebugTraceRedactsTheKey(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(200, okResponse("fine", `{"echo":"`+secretKey+`"}`)))
	for _, args := range [][]string{
		{"invoke", "get_run_failures", "--debug"},
		{"invoke", "get_run_failures", "--debug", "--json"},
	} {
		// The server echoes the key in its answer: the trace of that body is
		// redacted too (stdout is the server's own answer, not rewritten).
		_, stderr, exit := runVQ(t, map[string]string{"VQ_BASE_URL": s.URL, "VQ_API_KEY": secretKey}, args...)
		if exit != 0 || !strings.Contains(stderr, "Authorization: Bearer [redacted]") {
			t.Errorf("%v: exit %d, stderr %q", args, exit, stderr)
		}
		if strings.Contains(stderr, secretKey) {
			t.Errorf("%v: the --debug trace shows the key: %q", args, stderr)
		}
	}
}

func TestPlainHTTPIsRefusedForEveryRemoteEndpoint(t *testing.T) {
	t.Parallel()
	env := map[string]string{"VQ_API_KEY": secretKey}
	for _, args := range [][]string{
		{"failures", "r", "--base-url", "http://visualq.example.com"},
		{"invoke", "t", "--endpoint", "http://mcp.example.com/mcp"},
		{"invoke", "t", "--transport", "mcp", "--base-url", "http://visualq.example.com"},
		{"ci", "status", "run_1", "--base-url", "http://visualq.example.com"},
		{"watch", "job_1", "--base-url", "http://10.0.0.1:8080"},
	} {
		_, stderr, exit := runVQ(t, env, args...)
		if exit != exitcode.Usage || !strings.Contains(stderr, "plain http") {
			t.Errorf("%v: exit %d, stderr %q", args, exit, stderr)
		}
		if strings.Contains(stderr, secretKey) {
			t.Errorf("%v: the refusal shows the key", args)
		}
	}
}

// Host names are case-insensitive: plain http to LOCALHOST is loopback,
// and the call goes (with its key, also to an --endpoint on the base
// URL's host spelt otherwise) to the server there.
func TestLoopbackHostNamesAreCaseInsensitive(t *testing.T) {
	t.Parallel()
	ts := startLoggedSandbox(t)
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	env := map[string]string{"VQ_API_KEY": sandbox.KeyAdmin}
	for _, args := range [][]string{
		{"failures", "run_abc", "--base-url", "http://LOCALHOST:" + port},
		{"failures", "run_abc", "--base-url", "http://LocalHost:" + port, "--transport", "mcp"},
		{"tools", "--base-url", "http://localhost:" + port, "--endpoint", "HTTP://LOCALHOST:" + port + "/api/mcp", "--json"},
	} {
		ts.took()
		if _, stderr, exit := runVQ(t, env, args...); exit != 0 {
			t.Errorf("%v: exit %d: %s", args, exit, stderr)
		}
		if got := ts.took(); len(got) == 0 {
			t.Errorf("%v: nothing reached the server", args)
		}
	}
}
