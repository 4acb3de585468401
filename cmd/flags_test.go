package cmd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
)

// A command's help shows its own flags and at most six of the shared
// ones, naming the rest; vq help environment lists every shared flag.
func TestHelpShowsAFewSharedFlagsAndNamesTheRest(t *testing.T) {
	t.Parallel()
	root := NewRootCmd(&cmdutil.Factory{IOStreams: &iostreams.IOStreams{}, Getenv: func(string) string { return "" }})
	var paths [][]string
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.IsAvailableCommand() {
			paths = append(paths, strings.Fields(c.CommandPath())[1:])
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, path := range paths {
		name := strings.Join(path, " ")
		stdout, _, exit := runVQ(t, nil, append(path, "--help")...)
		own := section(stdout, "Flags:")
		global := section(stdout, "Global Flags:")
		shown := 0
		for _, line := range strings.Split(global, "\n") {
			if strings.HasPrefix(line, "      --") {
				shown++
			}
		}
		if exit != 0 || shown > 6 {
			t.Errorf("vq %s --help: exit %d, %d shared flags shown:\n%s", name, exit, shown, stdout)
		}
		c, _, _ := root.Find(path)
		c.InheritedFlags()
		c.Flags().VisitAll(func(f *pflag.Flag) {
			named := regexp.MustCompile(`--` + f.Name + `\b`)
			listed := regexp.MustCompile(`(?m)^\s+(-., )?--` + f.Name + `\b`)
			switch {
			case !cmdutil.IsShared(f):
			case listed.MatchString(own):
				t.Errorf("vq %s --help lists the shared --%s among its own flags", name, f.Name)
			case !named.MatchString(global):
				t.Errorf("vq %s --help does not name --%s, which it takes", name, f.Name)
			}
		})
	}
	stdout, _, _ := runVQ(t, nil, "help", "environment")
	root.Flags().VisitAll(func(f *pflag.Flag) {
		if cmdutil.IsShared(f) && !regexp.MustCompile(`--`+f.Name+`\b`).MatchString(stdout) {
			t.Errorf("vq help environment does not list --%s", f.Name)
		}
	})
}

// section is the text of help under heading, up to the next blank line.
func section(help, heading string) string {
	_, after, _ := strings.Cut(help, "\n"+heading+"\n")
	text, _, _ := strings.Cut(after, "\n\n")
	return text
}

// A shared flag acts the same before the command's name, through groups,
// as after it: what the server receives says so.
func TestSharedFlagsActBeforeTheCommandsName(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(200, runFailuresBody))
	for _, args := range [][]string{
		{"--project", "shop", "--no-retry", "failures", "run_abc"},
		{"failures", "run_abc", "--project", "shop", "--no-retry"},
		{"--yes", "--project=shop", "tracking", "--debug", "plan", "--scenario", "scn_1"},
	} {
		before := s.Count()
		_, stderr, exit := runVQ(t, s.Env(), args...)
		calls := s.Calls()[before:]
		if exit != 0 || len(calls) != 1 || calls[0].Body["project"] != "shop" {
			t.Errorf("vq %s: exit %d (%s), sent %v; want one call with project shop", strings.Join(args, " "), exit, stderr, calls)
		}
	}
}

// A flag that acts only on MCP calls is refused, before anything is sent,
// on a command whose calls go to the invoke endpoint; the CI commands,
// whose endpoint speaks neither invoke nor MCP, take none of the transport
// flags; the commands that always speak MCP take no --transport. None is
// accepted and ignored.
func TestFlagsThatWouldDoNothingAreRefused(t *testing.T) {
	t.Parallel()
	server := testkit.NewServer(t, testkit.Always(200, `{"ok":true,"tool":"get_run_failures","summary":"ok","data":null,"warnings":[],"nextActions":[]}`))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"failures", "run_abc", "--header", "X-A: 1"}, "--header acts on MCP calls"},
		{[]string{"failures", "run_abc", "--log-level", "debug"}, "--log-level acts on MCP calls"},
		{[]string{"--save-dir", t.TempDir(), "failures", "run_abc"}, "--save-dir acts on MCP calls"},
		{[]string{"invoke", "get_run_failures", "runId=r", "--elicit-defaults"}, "--elicit-defaults acts on MCP calls"},
		{[]string{"ci", "run-vrt", "--transport", "mcp"}, "--transport does not apply to vq ci run-vrt"},
		{[]string{"ci", "status", "r1", "--endpoint", server.URL + "/api/mcp"}, "--endpoint does not apply to vq ci status"},
		{[]string{"ci", "run-vrt", "--wait", "--header", "X-A: 1"}, "--header does not apply to vq ci run-vrt"},
		{[]string{"tools", "--transport", "invoke"}, "--transport does not apply to vq tools"},
		{[]string{"mcp", "prompts", "--transport", "invoke"}, "--transport does not apply to vq mcp prompts"},
	} {
		_, stderr, exit := runVQ(t, server.Env(), tc.args...)
		if exit != exitcode.Usage || !strings.Contains(stderr, tc.want) {
			t.Errorf("vq %s: exit %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), exit, stderr, exitcode.Usage, tc.want)
		}
	}
	if n := server.Count(); n != 0 {
		t.Errorf("the server received %d requests; a refused flag sends nothing", n)
	}
}
