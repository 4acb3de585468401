package cmd

import (
	"strings"
	"testing"

	"github.com/visualq/vq/api"
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

// --wait says what it waits for: the job or run a tool starts, else the
// readiness lock a write waits out before it writes; never a job a write
// does not start.
func TestWaitSaysWhatItWaitsFor(t *testing.T) {
	t.Parallel()
	root := NewRootCmd(&cmdutil.Factory{IOStreams: &iostreams.IOStreams{}, Getenv: func(string) string { return "" }})
	for _, row := range cmdutil.TaskCommands {
		c, _, err := root.Find(strings.Fields(row.Path))
		wait, spec := c.Flags().Lookup("wait"), api.MustTool(row.Tool)
		switch {
		case err != nil:
			t.Errorf("vq %s: %v", row.Path, err)
		case wait == nil:
		case spec.Write && !spec.Async && !strings.Contains(wait.Usage, "first import is analysed"):
			t.Errorf("vq %s --wait: %q, but it starts no job: it waits out the readiness lock", row.Path, wait.Usage)
		case !spec.Write && !strings.Contains(wait.Usage, "job or run"):
			t.Errorf("vq %s --wait: %q", row.Path, wait.Usage)
		}
	}
}
