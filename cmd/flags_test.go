package cmd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
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
