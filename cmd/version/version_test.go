package version_test

import (
	"context"
	"strings"
	"testing"

	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/version"
)

func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }

func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }

func TestNewCmdVersionAndExitCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args       []string
		structured bool // a document, not the text
		jq         string
		wantErr    string
	}{
		{args: nil},
		{args: []string{"--json"}, structured: true},
		{args: []string{"--format", "json"}, structured: true},
		{args: []string{"--jq", ".version"}, structured: true, jq: ".version"},
		{args: []string{"--format", "markdown"}, wantErr: "markdown"},
		{args: []string{"extra"}, wantErr: `unknown command "extra"`},
	} {
		var ranVersion, ranExitCodes *cmdutil.OutputOptions
		errVersion := cmdtest.Execute(version.NewCmdVersion(cmdtest.NewFactory(), func(_ context.Context, o *version.Options) error { ranVersion = &o.Output; return nil }), tc.args...)
		errExitCodes := cmdtest.Execute(version.NewCmdExitCodes(cmdtest.NewFactory(), func(_ context.Context, o *version.Options) error { ranExitCodes = &o.Output; return nil }), tc.args...)
		for _, got := range []struct {
			name string
			ran  *cmdutil.OutputOptions
			err  error
		}{{"version", ranVersion, errVersion}, {"exit-codes", ranExitCodes, errExitCodes}} {
			switch {
			case tc.wantErr != "" && (got.err == nil || !strings.Contains(got.err.Error(), tc.wantErr) || got.ran != nil):
				t.Errorf("%s %q: ran %v, err %v; want an error about %q before running", got.name, tc.args, got.ran != nil, got.err, tc.wantErr)
			case tc.wantErr == "" && (got.err != nil || got.ran == nil || got.ran.Structured() != tc.structured || got.ran.JQ != tc.jq):
				t.Errorf("%s %q: err %v, output %+v; want structured %v, jq %q", got.name, tc.args, got.err, got.ran, tc.structured, tc.jq)
			}
		}
	}
}
