package cmd

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// parse runs one command with its behaviour replaced (the runF each NewCmdX
// takes), so flag parsing is tested apart from the network: it returns
// what the command would have run with, printed, or its error.
func parse(t *testing.T, newCmd func(f *cmdutil.Factory, got func(any)) *cobra.Command, args ...string) (string, error) {
	t.Helper()
	f := &cmdutil.Factory{IOStreams: &iostreams.IOStreams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
	var parsed any
	c := newCmd(f, func(v any) { parsed = v })
	c.SetArgs(args)
	c.SetOut(&bytes.Buffer{})
	c.SetErr(&bytes.Buffer{})
	err := c.ExecuteContext(context.Background())
	if parsed == nil {
		return "", err
	}
	return fmt.Sprintf("%+v", parsed), err
}

// record is a runF that keeps what it was given.
func record[T any](got func(any)) func(context.Context, T) error {
	return func(_ context.Context, v T) error { got(v); return nil }
}

// recordOptions is record for options that carry a pipeline, which it
// leaves out: the pipeline's flags are tested through what a run sends.
func recordOptions[T any](got func(any), pipeline func(*T) **cmdutil.Pipeline) func(context.Context, *T) error {
	return func(_ context.Context, v *T) error {
		c := *v
		*pipeline(&c) = nil
		got(&c)
		return nil
	}
}

func TestFlagParsing(t *testing.T) {
	t.Parallel()
	invoke := func(f *cmdutil.Factory, got func(any)) *cobra.Command {
		return NewCmdInvoke(f, recordOptions(got, func(o *InvokeOptions) **cmdutil.Pipeline { return &o.Pipeline }))
	}
	sb := func(f *cmdutil.Factory, got func(any)) *cobra.Command {
		return NewCmdSandbox(f, record[*SandboxOptions](got))
	}
	tools := func(f *cmdutil.Factory, got func(any)) *cobra.Command {
		return NewCmdTools(f, func(context.Context, *cmdutil.Pipeline) error { got("tools/list"); return nil })
	}
	for _, tc := range []struct {
		cmd     func(*cmdutil.Factory, func(any)) *cobra.Command
		args    []string
		want    string // the options run with; "" when parsing must fail first
		wantErr string
	}{
		{invoke, []string{"get_run", "runId=r1", "n:=2", "--args", `{"x":true}`}, `&{Tool:get_run Pairs:[runId=r1 n:=2] ArgsJSON:{"x":true} Pipeline:<nil>}`, ""},
		{tools, nil, "tools/list", ""},
		{sb, []string{"--addr", "127.0.0.1:0", "--latency", "300ms", "--fail-rate", "0.2"},
			fmt.Sprintf("%+v", &SandboxOptions{sandbox.Options{Addr: "127.0.0.1:0", Latency: 300 * time.Millisecond, FailRate: 0.2}}), ""},
	} {
		got, err := parse(t, tc.cmd, tc.args...)
		if tc.wantErr != "" {
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.wantErr)) || got != "" {
				t.Errorf("%v: ran with %s, err %v; want an error about %s before running", tc.args, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%v:\n got %s (err %v)\nwant %s", tc.args, got, err, tc.want)
		}
	}
}

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
