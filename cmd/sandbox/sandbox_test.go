package sandbox_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/cmd/sandbox"
	vqsandbox "github.com/visualq/vq/sandbox"
)

func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }

func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }

func TestNewCmdSandbox(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		want    vqsandbox.Options
		wantErr string
	}{
		{args: nil, want: vqsandbox.Options{Addr: "127.0.0.1:8787"}},
		{args: []string{"--addr", "127.0.0.1:0", "--latency", "300ms", "--fail-rate", "0.2"}, want: vqsandbox.Options{Addr: "127.0.0.1:0", Latency: 300 * time.Millisecond, FailRate: 0.2}},
		{args: []string{"--rate", "-1", "--job-step", "5ms"}, want: vqsandbox.Options{Addr: "127.0.0.1:8787", Rate: -1, JobStep: 5 * time.Millisecond}},
		{args: []string{"--latency", "soon"}, wantErr: "--latency"},
		{args: []string{"extra"}, wantErr: `unknown command "extra"`},
	} {
		f := &cmdutil.Factory{IOStreams: &iostreams.IOStreams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
		var got *sandbox.SandboxOptions
		c := sandbox.NewCmdSandbox(f, func(_ context.Context, o *sandbox.SandboxOptions) error { got = o; return nil })
		c.SetArgs(tc.args)
		c.SetOut(&bytes.Buffer{})
		c.SetErr(&bytes.Buffer{})
		err := c.ExecuteContext(context.Background())
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != nil):
			t.Errorf("%q: ran %v, err %v; want an error about %q before running", tc.args, got != nil, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || got == nil || got.Options != tc.want):
			t.Errorf("%q: err %v, options %+v; want %+v", tc.args, err, got, tc.want)
		}
	}
}
