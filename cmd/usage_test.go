package cmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/testkit"
)

// A misspelt subcommand fails at every level of the tree: the usage code,
// the command that was meant, and nothing sent. Each group is tried with a
// typo of each of its subcommands.
func TestUnknownSubcommandsFailAtEveryLevel(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(200, runFailuresBody))
	root := NewRootCmd(&cmdutil.Factory{IOStreams: &iostreams.IOStreams{}, Getenv: func(string) string { return "" }})
	var groups []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasAvailableSubCommands() {
			groups = append(groups, c)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if len(groups) < 4 {
		t.Fatalf("only %d groups found", len(groups))
	}
	for _, g := range groups {
		path := strings.Fields(g.CommandPath())[1:]
		for _, sub := range g.Commands() {
			name := sub.Name()
			if !sub.IsAvailableCommand() || len(name) < 3 || name == "help" {
				continue
			}
			typo := name[:len(name)-2] + name[len(name)-1:] + name[len(name)-2:len(name)-1]
			if typo == name {
				typo = name[:len(name)-1] + "x"
			}
			args := append(append([]string{}, path...), typo, "x")
			_, stderr, exit := runVQ(t, s.Env(), args...)
			wantReason := fmt.Sprintf("unknown command %q for %q", typo, g.CommandPath())
			if exit != 2 || !strings.Contains(stderr, wantReason) || !strings.Contains(stderr, "did you mean "+name) {
				t.Errorf("vq %s: exit %d, stderr %q; want 2, %s and did you mean %s", strings.Join(args, " "), exit, stderr, wantReason, name)
			}
		}
	}
	if n := len(s.Calls()); n != 0 {
		t.Errorf("%d calls sent by mistyped commands", n)
	}
}
