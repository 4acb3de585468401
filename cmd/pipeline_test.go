package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/testkit"
)

const confirmRequiredBody = `{"ok":false,"tool":"approve_vrt_results","summary":"confirm must be true","data":null,"warnings":[],"nextActions":[],
"error":{"code":"confirm_required","message":"confirm must be true to execute write tool approve_vrt_results"},"recoverable":true}`

// --yes is consent given once: a tool known to write is sent once, with
// confirm: true, whichever command fronts it.
func TestYesSendsAKnownWriteToolOnceWithConfirm(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"invoke", "approve_vrt_results", "runId=run_abc", "--yes"},
		{"approve", "run_abc", "--yes"},
		{"--yes", "approve", "run_abc"},
	} {
		s := testkit.NewServer(t, testkit.Always(200, `{"ok":true,"tool":"approve_vrt_results","summary":"approved","data":null,"warnings":[],"nextActions":[]}`))
		_, stderr, exit := runVQ(t, s.Env(), args...)
		calls := s.Calls()
		if exit != 0 || len(calls) != 1 {
			t.Fatalf("%v: exit %d, %d calls, want 0 and 1; stderr %s", args, exit, len(calls), stderr)
		}
		if a := calls[0].Args; a["confirm"] != true || a["runId"] != "run_abc" {
			t.Errorf("%v: sent args %v, want runId and confirm: true", args, calls[0].Args)
		}
	}
}

// A tool vq does not know to write is sent as it is; when the server asks
// for consent, --yes gives it and the call is sent again once.
func TestYesAnswersTheConfirmGateOfAnUnknownTool(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(400, confirmRequiredBody))
	_, _, exit := runVQ(t, s.Env(), "invoke", "custom_write", "--yes", "--no-retry")
	calls := s.Calls()
	if len(calls) != 2 {
		t.Fatalf("%d calls, want 2 (as it is, then with confirm)", len(calls))
	}
	if a := calls[0].Args; a["confirm"] != nil {
		t.Errorf("first call carried confirm: %v", a)
	}
	if a := calls[1].Args; a["confirm"] != true {
		t.Errorf("second call lacks confirm: %v", a)
	}
	if exit != 11+1 { // confirm_required, recoverable: the server refused again
		t.Errorf("exit %d, want 12", exit)
	}
}

// Flags live on the commands that honour them: one that cannot is refused
// with the usage code before anything is sent, never accepted and ignored.
func TestFlagsACommandCannotHonourAreRefused(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(200, runFailuresBody))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"failures", "run_abc", "--wait"}, "unknown flag: --wait"},
		{[]string{"failures", "run_abc", "--interval", "1s"}, "unknown flag: --interval"},
		{[]string{"version", "--wait"}, "unknown flag: --wait"},
		{[]string{"version", "--base-url", s.URL}, "--base-url does not apply to vq version"},
		{[]string{"--yes", "exit-codes"}, "--yes does not apply to vq exit-codes"},
		{[]string{"watch", "job_1", "--yes"}, "--yes does not apply to vq watch"},
		{[]string{"ci", "call", "get_run_status", "--wait"}, "unknown flag: --wait"},
		{[]string{"exit-codes", "--format", "junit"}, `unknown --format "junit"`},
		{[]string{"demo", "--base-url", s.URL}, "--base-url does not apply to vq demo"},
		{[]string{"invoke", "t", "--format", "yaml"}, `unknown --format "yaml"`},
		{[]string{"invoke", "t", "--wait-timeout", "0s"}, "--wait-timeout must be positive"},
	} {
		_, stderr, exit := runVQ(t, s.Env(), tc.args...)
		if exit != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, exit, stderr, tc.want)
		}
	}
	if n := len(s.Calls()); n != 0 {
		t.Errorf("%d calls sent by refused command lines", n)
	}
}

// Wait flags exist where a call may be waited for: an async tool, a write
// tool (the readiness lock), vq invoke, vq watch, vq prove and the CI runs.
func TestWaitFlagsWhereACallMayBeWaitedFor(t *testing.T) {
	t.Parallel()
	root := NewRootCmd(&cmdutil.Factory{IOStreams: &iostreams.IOStreams{}, Getenv: func(string) string { return "" }})
	for _, path := range [][]string{
		{"invoke"}, {"tracking", "run"}, {"approve"}, {"scenario", "create"}, {"prove"}, {"watch"},
		{"ci", "run-vrt"}, {"ci", "run-perf"}, {"ci", "status"},
	} {
		c, _, err := root.Find(path)
		if err != nil || c.Flags().Lookup("wait-timeout") == nil || c.Flags().Lookup("interval") == nil {
			t.Errorf("vq %s lacks the wait flags", strings.Join(path, " "))
		}
	}
	for _, path := range [][]string{{"failures"}, {"diff"}, {"scenario", "find"}, {"tracking", "plan"}, {"tools"}, {"ci", "call"}} {
		if c, _, _ := root.Find(path); c.Flags().Lookup("wait") != nil || c.Flags().Lookup("wait-timeout") != nil {
			t.Errorf("vq %s has wait flags it cannot honour", strings.Join(path, " "))
		}
	}
}

// --timeout given without --wait-timeout still bounds the whole wait, as
// before --wait-timeout existed, and says it is deprecated.
func TestTimeoutStillBoundsAWaitWithADeprecationNote(t *testing.T) {
	t.Parallel()
	s := testkit.NewJobServer(t, testkit.Reply{}, map[string][]testkit.Reply{"job_1": {testkit.JobStep("job_1", "running", 1, 3, "")}})
	_, stderr, exit := runVQ(t, s.Env(), "watch", "job_1", "--interval", "2ms", "--timeout", "60ms")
	if exit != 5 {
		t.Errorf("exit %d, want 5 (timeout)", exit)
	}
	if !strings.Contains(stderr, "warning: --timeout bounding the whole wait is deprecated; use --wait-timeout 60ms\n") {
		t.Errorf("no deprecation note:\n%s", stderr)
	}
	_, stderr, exit = runVQ(t, s.Env(), "watch", "job_1", "--interval", "2ms", "--timeout", "30s", "--wait-timeout", "60ms")
	if exit != 5 || strings.Contains(stderr, "deprecated") {
		t.Errorf("with --wait-timeout: exit %d, stderr:\n%s", exit, stderr)
	}
}

// The commands that print documents of their own honour the output flags
// they accept.
func TestDocumentCommandsHonourTheirOutputFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"exit-codes", "--jq", ".[] | select(.exit==8) | .code"}, "pending\n"},
		{[]string{"exit-codes", "--json", "--jq", "length > 20"}, "true\n"},
		{[]string{"version", "--jq", ".version"}, "dev\n"},
	} {
		stdout, stderr, exit := runVQ(t, nil, tc.args...)
		if exit != 0 || stdout != tc.want {
			t.Errorf("%v: exit %d, stdout %q (stderr %q), want %q", tc.args, exit, stdout, stderr, tc.want)
		}
	}
	stdout, _, _ := runVQ(t, nil, "version", "--json")
	var v map[string]string
	if err := json.Unmarshal([]byte(stdout), &v); err != nil || v["version"] == "" || v["commit"] == "" {
		t.Errorf("version --json: %q (%v)", stdout, err)
	}
}
