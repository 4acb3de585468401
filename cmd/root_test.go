package cmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
)

// vq builds only the command its words name: the work counted is the
// commands built under the root. Each entry of rootCommands builds the
// commands it is named by, and together they are the whole tree.
func TestRootBuildsOnlyTheCommandItsWordsName(t *testing.T) {
	t.Parallel()
	newFactory := func() *cmdutil.Factory {
		return &cmdutil.Factory{IOStreams: &iostreams.IOStreams{}, Getenv: func(string) string { return "" }}
	}
	names := func(root *cobra.Command) []string {
		var built []string
		for _, c := range root.Commands() {
			built = append(built, c.Name())
		}
		slices.Sort(built)
		return built
	}
	var all []string
	for _, c := range rootCommands {
		var built []string
		for _, b := range c.build(newFactory()) {
			built = append(built, b.Name())
		}
		if want := slices.Sorted(slices.Values(c.names)); !slices.Equal(slices.Sorted(slices.Values(built)), want) {
			t.Errorf("the entry named %v builds %v", want, built)
		}
		all = append(all, c.names...)
	}
	slices.Sort(all)
	if got := names(NewRootCmd(newFactory())); !slices.Equal(got, all) {
		t.Errorf("the whole tree has %v, want %v", got, all)
	}
	for _, tc := range []struct {
		args string
		want []string // nil: all
	}{
		{"failures run_abc --json", []string{"failures"}},
		{"--profile prod ci run-vrt", []string{"ci"}},
		{"--debug --base-url=http://127.0.0.1:1 invoke get_run_status", []string{"invoke"}},
		{"-- failures", nil},
		{"scenario find", []string{"scenario", "tracking"}},
		{"--version", []string{}},
		{"--profile prod -v", []string{}},
		{"--version --help", nil},
		{"", nil},
		{"help ci", nil},
		{"failz", nil},
		{"__complete ci ", nil},
	} {
		want := tc.want
		if want == nil {
			want = all
		}
		if got := names(newRoot(newFactory(), strings.Fields(tc.args))); !slices.Equal(got, want) {
			t.Errorf("vq %s: built %v, want %v", tc.args, got, want)
		}
	}
}
