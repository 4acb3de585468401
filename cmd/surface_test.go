package cmd

import (
	"cmp"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
)

var updateSurface = flag.Bool("update-surface", false, "rewrite testdata/command-flags.txt from what the commands take")

// commandFlagsFile is every command with the flags it takes: scripts
// depend on each, so a change to it is a change to vq's surface.
const commandFlagsFile = "testdata/command-flags.txt"

// Every command takes the flags it took, pinned in
// testdata/command-flags.txt: each flag of vq is tried on each command as
// a script would give it (vq COMMAND --flag VALUE --help), and a flag is
// taken when that exits 0. One a command does not take is a usage error
// that says so, and a shared flag (vq help environment) is taken the
// same before the command's name.
func TestEveryCommandTakesTheFlagsItTook(t *testing.T) {
	t.Parallel()
	root := NewRootCmd(&cmdutil.Factory{IOStreams: &iostreams.IOStreams{}, Getenv: func(string) string { return "" }})
	var commands [][]string
	flags := map[string]*pflag.Flag{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.IsAvailableCommand() || !c.HasParent() {
			commands = append(commands, strings.Fields(c.CommandPath())[1:])
		}
		c.Flags().VisitAll(func(f *pflag.Flag) { flags[f.Name] = f })
		c.InheritedFlags().VisitAll(func(f *pflag.Flag) { flags[f.Name] = f })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	delete(flags, "version") // the root's alone, and not a flag a command acts with
	var lines []string
	for _, path := range commands {
		name := strings.Join(append([]string{"vq"}, path...), " ")
		var taken []string
		for _, f := range slices.Sorted(maps.Keys(flags)) {
			given := flagWords(flags[f])
			_, stderr, exit := runVQ(t, nil, slices.Concat(path, given, []string{"--help"})...)
			if exit == 0 {
				taken = append(taken, "--"+f)
			} else if want := refusal(root, name, f); exit != 2 || !strings.Contains(stderr, want) {
				t.Errorf("%s %s: exit %d, stderr %q; want 2 and %q", name, strings.Join(given, " "), exit, stderr, want)
			}
			if !isSharedFlag(root, f) {
				continue
			}
			if _, stderr, before := runVQ(t, nil, slices.Concat(given, path, []string{"--help"})...); (before == 0) != (exit == 0) {
				t.Errorf("vq %s %s: exit %d (%s), but %d after the command's name", strings.Join(given, " "), strings.Join(path, " "), before, stderr, exit)
			}
		}
		lines = append(lines, name+": "+strings.Join(taken, " "))
	}
	slices.Sort(lines)
	got := strings.Join(lines, "\n") + "\n"
	if *updateSurface {
		if err := os.WriteFile(filepath.FromSlash(commandFlagsFile), []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(filepath.FromSlash(commandFlagsFile))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("the commands' flags changed (go test ./cmd -run %s -update-surface rewrites %s):\n%s", t.Name(), commandFlagsFile, got)
	}
}

// flagWords are f given as a script gives it: alone when it needs no
// value, else followed by a value of its type.
func flagWords(f *pflag.Flag) []string {
	if f.NoOptDefVal != "" {
		return []string{"--" + f.Name}
	}
	value := map[string]string{"duration": "1s", "float64": "0.5", "int": "1", "stringArray": "X-A: b"}[f.Value.Type()]
	return []string{"--" + f.Name, cmp.Or(value, "v")}
}

// refusal is what a command says of a flag it does not take.
func refusal(root *cobra.Command, command, flag string) string {
	if isSharedFlag(root, flag) {
		return "--" + flag + " does not apply to " + command
	}
	return "unknown flag: --" + flag
}
