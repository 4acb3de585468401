package cmd

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// A start (run-vrt, run-perf) carries an Idempotency-Key: in one CI job
// the same start has the same key, and the sandbox answers the same run;
// another attempt of the job, another start or no CI at all is another
// key and another run.
func TestCIStartIdempotencyKey(t *testing.T) {
	t.Parallel()
	s := newCISandbox(t, time.Millisecond)
	github := map[string]string{"GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_JOB": "visual"}
	gitlab := map[string]string{"CI_PIPELINE_ID": "77", "CI_JOB_ID": "901"}
	with := func(ci map[string]string, more ...string) map[string]string {
		env := maps.Clone(s.Env())
		maps.Copy(env, ci)
		for i := 0; i < len(more); i += 2 {
			env[more[i]] = more[i+1]
		}
		return env
	}
	starts := []struct {
		env    map[string]string
		args   []string
		run    string
		sameAs int // the start whose key this one sends again; -1 for a new key
	}{
		{with(github), []string{"run-vrt", "branch=main"}, "run_ci_0001", -1},
		{with(github), []string{"run-vrt", "branch=main"}, "run_ci_0001", 0},
		{with(github, "GITHUB_RUN_ATTEMPT", "2"), []string{"run-vrt", "branch=main"}, "run_ci_0002", -1},
		{with(github), []string{"run-vrt", "branch=main", "commit=abc123"}, "run_ci_0003", -1},
		{with(github, "VQ_PROJECT", "shop"), []string{"run-vrt", "branch=main"}, "run_ci_0004", -1},
		{with(github), []string{"run-perf", "branch=main"}, "run_ci_0005", -1},
		{with(gitlab), []string{"run-vrt", "branch=main"}, "run_ci_0006", -1},
		{with(gitlab), []string{"run-vrt", "branch=main"}, "run_ci_0006", 6},
		{with(nil), []string{"run-vrt", "branch=main"}, "run_ci_0007", -1},
		{with(nil), []string{"run-vrt", "branch=main"}, "run_ci_0008", -1},
		{with(nil), []string{"run-vrt", "branch=main", "--idempotency-key", "release-7"}, "run_ci_0009", -1},
	}
	for _, start := range starts {
		stdout, stderr, exit := runVQ(t, start.env, append([]string{"ci"}, append(start.args, "--jq", ".data.runId")...)...)
		if exit != 0 || strings.TrimSpace(stdout) != start.run {
			t.Fatalf("%v: exit %d, run %q, want %s\n%s", start.args, exit, stdout, start.run, stderr)
		}
	}
	var keys []string
	for _, c := range s.Calls() {
		if c.Tool == api.ToolRunVRT || c.Tool == api.ToolRunPerf {
			keys = append(keys, c.Header.Get("Idempotency-Key"))
		}
	}
	sfString := regexp.MustCompile(`^"[!#-\[\]-~]+"$`)
	for i, key := range keys {
		if !sfString.MatchString(key) {
			t.Errorf("start %d sent Idempotency-Key %q, want a structured-field string", i, key)
		}
		for j, other := range keys[:i] {
			if want := starts[i].sameAs == j; (key == other) != want {
				t.Errorf("start %d sent key %s, start %d %s: same %v, want %v", i, key, j, other, key == other, want)
			}
		}
	}
	if last := keys[len(keys)-1]; last != `"release-7"` {
		t.Errorf("--idempotency-key release-7 sent %s", last)
	}
}

// A start whose answer the gateway lost (502 after the server started it)
// exits 55 with the command that sends it again under the same key; that
// command gets the same run, and the same key with another body is
// refused (422), as the IETF draft has it.
func TestCIMaybeAppliedResendsWithItsKey(t *testing.T) {
	t.Parallel()
	sb := sandbox.New(sandbox.Options{JobStep: time.Millisecond, Rate: -1}).Handler()
	var lost atomic.Bool
	s := testkit.Wrap(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == api.CIPath+api.ToolRunVRT && lost.CompareAndSwap(false, true) {
			sb.ServeHTTP(httptest.NewRecorder(), r) // started, and the answer lost
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte("<html><body>502 Bad Gateway</body></html>"))
			return
		}
		sb.ServeHTTP(w, r)
	}))
	s.Key = sandbox.KeyAdmin
	_, stderr, exit := runVQ(t, s.Env(), "ci", "run-vrt", "branch=feature/new-header", "--wait", "--interval", "2ms")
	hint := regexp.MustCompile(`(?m)^hint: to send it again as the same start \(a server that honours Idempotency-Key answers the same run\): ` +
		`vq ci run-vrt branch=feature/new-header --wait --idempotency-key (\S+)$`).FindStringSubmatch(stderr)
	if exit != exitcode.MaybeApplied || hint == nil || !strings.Contains(stderr, "error: maybe_applied: run_vrt may have been applied") {
		t.Fatalf("exit %d, want 55 with the command that sends it again\n%s", exit, stderr)
	}
	key := hint[1]
	if sent := s.CallsOf(api.ToolRunVRT)[0].Header.Get("Idempotency-Key"); sent != `"`+key+`"` {
		t.Errorf("the hint names key %s, the start sent %s", key, sent)
	}

	stdout, stderr, exit := runVQ(t, s.Env(), "ci", "run-vrt", "branch=feature/new-header", "--idempotency-key", key, "--jq", ".data.runId")
	if exit != 0 || stdout != "run_ci_0001\n" {
		t.Errorf("sent again with its key: exit %d, run %q, want the run the lost start made\n%s", exit, stdout, stderr)
	}
	_, stderr, exit = runVQ(t, s.Env(), "ci", "run-vrt", "branch=main", "--idempotency-key", key)
	if exit != exitcode.ForCode(api.CodeValidation, true) || !strings.Contains(stderr, "Idempotency-Key \""+key+"\" was sent with another request body") {
		t.Errorf("the same key with another body: exit %d\n%s", exit, stderr)
	}
	if stdout, _, _ := runVQ(t, s.Env(), "ci", "run-vrt", "branch=main", "--jq", ".data.runId"); stdout != "run_ci_0002\n" {
		t.Errorf("a start without the key made run %q, want run_ci_0002: the refused one made none", stdout)
	}
}
