package completion_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/completion"
	"github.com/visualq/vq/cmd/iostreams"
)

func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }

func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }

func TestNewCmdCompletion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		shell   string
		wantErr string
	}{
		{args: []string{"bash"}, shell: "bash"},
		{args: []string{"powershell"}, shell: "powershell"},
		{args: []string{"tcsh"}, wantErr: `invalid argument "tcsh"`},
		{args: nil, wantErr: "SHELL (bash, zsh, fish or powershell)"},
		{args: []string{"bash", "zsh"}, wantErr: "SHELL"},
	} {
		f := &cmdutil.Factory{IOStreams: &iostreams.IOStreams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
		var got *completion.CompletionOptions
		c := completion.NewCmdCompletion(f, func(o *completion.CompletionOptions) error { got = o; return nil })
		c.SetArgs(tc.args)
		c.SetOut(&bytes.Buffer{})
		c.SetErr(&bytes.Buffer{})
		err := c.ExecuteContext(context.Background())
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != nil):
			t.Errorf("%q: ran %v, err %v; want an error about %q before running", tc.args, got != nil, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || got == nil || got.Shell != tc.shell || got.Root != c || got.Out != f.IOStreams.Out):
			t.Errorf("%q: err %v, options %+v", tc.args, err, got)
		}
	}
}
