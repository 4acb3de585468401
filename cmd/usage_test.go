package cmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/internal/testkit"
)

// A misspelt subcommand fails at every level of the tree: the usage code,
// the command that was meant, and nothing sent. Each group is tried with a
// typo of each of its subcommands.
func TestUnknownSubcommandsFailAtEveryLevel(t *testing.T) {
	s := testkit.NewServer(t, testkit.Always(200, runFailuresBody))
	root := NewRootCmd(&Factory{IO: &IOStreams{}, Getenv: func(string) string { return "" }})
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

// A group alone shows its help and exits 0: a person asked what it does.
func TestAGroupAloneShowsItsHelp(t *testing.T) {
	stdout, _, exit := runVQ(t, nil, "ci")
	if exit != 0 || !strings.Contains(stdout, "run-vrt") {
		t.Errorf("exit %d, stdout %q", exit, stdout)
	}
}

// A misspelt flag names the flag that was meant; a group given an unknown
// word before a flag names the command, not the flag; a missing required
// flag points at its own command's help.
func TestFlagMistakesSayWhatWasMeant(t *testing.T) {
	s := testkit.NewServer(t, testkit.Always(200, runFailuresBody))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"failures", "run_abc", "--josn"}, "error: unknown flag: --josn\nhint: did you mean --json?\nhint: see: vq failures --help"},
		{[]string{"ci", "run-vtr", "--wait"}, "error: unknown command \"run-vtr\" for \"vq ci\"\nhint: did you mean run-vrt?"},
		{[]string{"diff", "run_abc", "--scenario", "Home"}, "error: required flag(s) \"viewport\" not set\nhint: see: vq diff --help"},
		{[]string{"prove", "BN-470", "--no-wiat"}, "did you mean --no-wait?"},
	} {
		_, stderr, exit := runVQ(t, s.Env(), tc.args...)
		if exit != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, exit, stderr, tc.want)
		}
	}
	if n := len(s.Calls()); n != 0 {
		t.Errorf("%d calls sent", n)
	}
}

// vq invoke takes only a tool name MCP allows, so a pasted line cannot
// smuggle a flag or a shell word in as the tool.
func TestInvokeRefusesWhatIsNoToolName(t *testing.T) {
	s := testkit.NewServer(t, testkit.Always(200, runFailuresBody))
	for _, args := range [][]string{{"invoke", "--", "--yes"}, {"invoke", "a b"}, {"invoke", "x;rm"}} {
		_, stderr, exit := runVQ(t, s.Env(), args...)
		if exit != 2 || !strings.Contains(stderr, "is not a tool name") {
			t.Errorf("%v: exit %d, stderr %q", args, exit, stderr)
		}
	}
	if n := len(s.Calls()); n != 0 {
		t.Errorf("%d calls sent", n)
	}
}

// vq's own lines on stderr have one style: error: for a failure, warning:
// and hint:, never vq: vq ….
func TestStderrHasOneStyle(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"failures"}, "error: vq failures needs RUN_ID\nhint: usage: vq failures RUN_ID [flags]\n"},
		{[]string{"invoke", "t", "--format", "yaml"}, "error: unknown --format \"yaml\"\nhint: use one of: text, json, markdown, junit, github\n"},
		{[]string{"failures", "run_abc"}, "error: no VisualQ server configured\nhint: set --base-url or VQ_BASE_URL (or --endpoint for an MCP server), run vq auth login, pick a signed-in server with --profile, or try vq demo\n"},
	} {
		if _, stderr, _ := runVQ(t, nil, tc.args...); stderr != tc.want {
			t.Errorf("vq %v: stderr\n%s\nwant\n%s", tc.args, stderr, tc.want)
		}
	}
}
