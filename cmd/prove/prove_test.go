package prove_test

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/cmd/prove"
)

func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }

// TestScripts runs the command-line cases of vq prove and vq watch with
// the test binary as vq, against a sandbox of each script's own.
func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }

// parse runs the command c builds with args, its behaviour replaced: the
// error of parsing, if any.
func parse(t *testing.T, c func(*cmdutil.Factory) *cobra.Command, args []string) error {
	t.Helper()
	f := &cmdutil.Factory{IOStreams: &iostreams.IOStreams{In: &bytes.Buffer{}, Out: io.Discard, ErrOut: io.Discard}, Getenv: func(string) string { return "" }}
	cmd := c(f)
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	return cmd.ExecuteContext(context.Background())
}

// TestNewCmdProve parses vq prove's arguments into the options it runs
// with, or refuses them before running.
func TestNewCmdProve(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		want    *prove.ProveOptions // nil when parsing must fail first
		wantErr string
	}{
		{[]string{"BN-470"}, &prove.ProveOptions{Ticket: "BN-470"}, ""},
		{[]string{"BN-470", "--copy", "--markdown"}, &prove.ProveOptions{Ticket: "BN-470", Copy: true, Markdown: true}, ""},
		{[]string{"BN-470", "--job", "job_7"}, &prove.ProveOptions{Ticket: "BN-470", Job: "job_7"}, ""},
		{[]string{"BN-470", "--no-wait"}, &prove.ProveOptions{Ticket: "BN-470", NoWait: true}, ""},
		{[]string{"BN-470", "--no-wait", "--markdown"}, nil, "markdown"},
		{[]string{"BN-470", "--no-wait", "--copy"}, nil, "copy"},
		{[]string{"BN-470", "--no-wait", "--job", "job_7"}, nil, "job"},
		{[]string{"BN-470", "--markdown-file", "c.txt", "--strict"}, &prove.ProveOptions{Ticket: "BN-470", MarkdownFile: "c.txt", Strict: true}, ""},
		{[]string{"BN-470", "--no-wait", "--markdown-file", "c.txt"}, nil, "markdown-file"},
		{[]string{"BN-470", "--no-wait", "--strict"}, nil, "strict"},
		{[]string{"BN-470", "--markdown", "--json"}, nil, "--markdown prints only the JIRA comment"},
		{[]string{"BN-470", "--markdown", "--format", "markdown"}, nil, "--markdown prints only the JIRA comment"},
		{nil, nil, "TICKET"},
	} {
		var got *prove.ProveOptions
		err := parse(t, func(f *cmdutil.Factory) *cobra.Command {
			return prove.NewCmdProve(f, func(_ context.Context, o *prove.ProveOptions) error { got = o; return nil })
		}, tc.args)
		if tc.want == nil {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != nil {
				t.Errorf("%v: ran with %+v, err %v; want an error about %s before running", tc.args, got, err, tc.wantErr)
			}
			continue
		}
		if got != nil {
			got.Pipeline = nil // its flags are tested through what a run sends
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v:\n got %+v (err %v)\nwant %+v", tc.args, got, err, tc.want)
		}
	}
}

// TestNewCmdWatch parses vq watch's job IDs.
func TestNewCmdWatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		want    []string // nil when parsing must fail first
		wantErr string
	}{
		{[]string{"job_1"}, []string{"job_1"}, ""},
		{[]string{"job_1", "job_2", "--wait-timeout", "10m"}, []string{"job_1", "job_2"}, ""},
		{nil, nil, "JOB_ID"},
	} {
		var got *prove.WatchOptions
		err := parse(t, func(f *cmdutil.Factory) *cobra.Command {
			return prove.NewCmdWatch(f, func(_ context.Context, o *prove.WatchOptions) error { got = o; return nil })
		}, tc.args)
		if tc.want == nil {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != nil {
				t.Errorf("%v: ran with %+v, err %v; want an error about %s before running", tc.args, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got == nil || !reflect.DeepEqual(got.JobIDs, tc.want) {
			t.Errorf("%v: ran with %+v (err %v), want jobs %v", tc.args, got, err, tc.want)
		}
	}
}
