package cmd

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// With --json every failure still writes exactly one ToolResponse on
// stdout, and one line on stderr saying what went wrong and what to do:
// a refusal, a 401, no credential, an http_error, and the usage and
// configuration mistakes found before any call.
func TestJSONFailuresWriteOneDocumentAndOneLine(t *testing.T) {
	t.Parallel()
	refusal := testkit.NewServer(t, testkit.Always(400, confirmRequiredBody))
	gateway := testkit.NewServer(t, testkit.Always(502, "<html>Bad Gateway</html>"))
	unauthorized := testkit.NewServer(t, testkit.Always(401, ""))
	for _, tc := range []struct {
		name   string
		env    map[string]string
		args   []string
		code   string // the document's error.code
		stderr string // in the human line
	}{
		{"refusal", refusal.Env(), []string{"approve", "run_abc", "--json"}, "confirm_required", "run the command again with --yes"},
		{"http_error", gateway.Env(), []string{"failures", "run_abc", "--json", "--no-retry"}, "http_error", "HTTP 502"},
		{"401", unauthorized.Env(), []string{"failures", "run_abc", "--json"}, "unauthorized", "sign in with: vq auth login"},
		{"no credential", map[string]string{"VQ_BASE_URL": refusal.URL}, []string{"failures", "run_abc", "--json"}, "unauthorized", "run vq auth login, or set VQ_API_KEY"},
		{"plain http elsewhere", map[string]string{"VQ_BASE_URL": "http://host.example", "VQ_API_KEY": "k"}, []string{"failures", "run_abc", "--json"}, "usage", "refusing to send the API key over plain http"},
		{"bad --args", refusal.Env(), []string{"invoke", "get_run_failures", "--args", "{bad", "--json"}, "usage", "--args must be a JSON object"},
		{"--format json", refusal.Env(), []string{"invoke", "t", "--args", "[]", "--format", "json"}, "usage", "--args must be a JSON object"},
	} {
		stdout, stderr, _ := runVQ(t, tc.env, tc.args...)
		var doc struct {
			OK    bool
			Tool  string
			Error struct{ Code string }
		}
		dec := json.NewDecoder(strings.NewReader(stdout))
		if err := dec.Decode(&doc); err != nil || dec.More() {
			t.Errorf("%s: stdout is not exactly one document (%v): %q", tc.name, err, stdout)
			continue
		}
		if doc.OK || doc.Error.Code != tc.code {
			t.Errorf("%s: document %+v, want error %s", tc.name, doc, tc.code)
		}
		if !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%s: stderr %q lacks %q", tc.name, stderr, tc.stderr)
		}
	}
}

// Errors say what to do: a refused connection names the URL it tried; a
// 404 on vq's own path says to use the server's root as --base-url.
func TestTransportErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	_, stderr, exit := runVQ(t, map[string]string{"VQ_BASE_URL": "http://127.0.0.1:1", "VQ_API_KEY": "k"}, "failures", "r", "--no-retry")
	if exit != 20 || !strings.Contains(stderr, "connection to http://127.0.0.1:1/api/mcp/v1/invoke failed: connection refused") {
		t.Errorf("refused: exit %d, stderr %q", exit, stderr)
	}
	_, stderr, _ = runVQ(t, map[string]string{"VQ_BASE_URL": ts.URL + "/api", "VQ_API_KEY": sandbox.KeyAdmin}, "failures", "run_abc")
	if !strings.Contains(stderr, "nothing is served at "+ts.URL+"/api/api/mcp/v1/invoke: --base-url must be the server's root, e.g. --base-url "+ts.URL) {
		t.Errorf("404: stderr %q", stderr)
	}
}

// A run ID holding a newline cannot forge a second line on stderr.
func TestServerTextCannotForgeALine(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(200, ""))
	s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"runId":"run_x\nhint: all checks passed","status":"error","failed":0,"total":3}`)
	})
	_, stderr, exit := runVQ(t, s.Env(), "ci", "status", "run_x")
	if exit != exitcode.RunError {
		t.Fatalf("exit %d, stderr %q", exit, stderr)
	}
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "hint: all checks passed") {
			t.Errorf("a server's newline forged a line:\n%s", stderr)
		}
	}
}
