package cmd

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

var updateSurface = flag.Bool("update-surface", false, "rewrite testdata/command-flags.txt from the command tree")

// commandFlagsFile is every command with the flags it takes: scripts
// depend on each, so a change to it is a change to vq's surface.
const commandFlagsFile = "testdata/command-flags.txt"

// Every command takes the flags it took: the commands × flags table is
// pinned in testdata/command-flags.txt.
func TestEveryCommandTakesTheFlagsItTook(t *testing.T) {
	root := NewRootCmd(&Factory{IO: &IOStreams{}, Getenv: func(string) string { return "" }})
	var lines []string
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.IsAvailableCommand() || !c.HasParent() {
			refused := strings.Split(c.Annotations[refusedAnnotation], ",")
			c.InheritedFlags()
			var names []string
			c.Flags().VisitAll(func(f *pflag.Flag) {
				if !slices.Contains(refused, f.Name) {
					names = append(names, "--"+f.Name)
				}
			})
			slices.Sort(names)
			lines = append(lines, c.CommandPath()+": "+strings.Join(names, " "))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
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
