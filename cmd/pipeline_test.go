package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
)

const confirmRequiredBody = `{"ok":false,"tool":"approve_vrt_results","summary":"confirm must be true","data":null,"warnings":[],"nextActions":[],
"error":{"code":"confirm_required","message":"confirm must be true to execute write tool approve_vrt_results"},"recoverable":true}`

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
