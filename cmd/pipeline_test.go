package cmd

import (
	"strings"
	"testing"

	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
)

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
