package ci_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/ci"
	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
)

func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }

// TestScripts runs the command-line cases of vq ci with the test binary
// as vq, against a sandbox of each script's own.
func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }

// TestNewCmdCI parses each subcommand's arguments into the options it
// runs with, or refuses them before running.
func TestNewCmdCI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		want    *ci.CIOptions // nil when parsing must fail first
		wantErr string
	}{
		{[]string{"run-vrt", "branch=main", "ci:=true"}, &ci.CIOptions{Tool: "run_vrt", Args: map[string]any{"branch": "main", "ci": true}}, ""},
		{[]string{"run-perf", "branch=main", "--wait", "--interval", "2ms"}, &ci.CIOptions{Tool: "run_perf", Args: map[string]any{"branch": "main"}}, ""},
		{[]string{"run-vrt", "--idempotency-key", "K7"}, &ci.CIOptions{Tool: "run_vrt", Args: map[string]any{}, IdempotencyKey: "K7"}, ""},
		{[]string{"run-perf", "--idempotency-key", ""}, nil, "--idempotency-key takes 1 to 255 printable ASCII characters"},
		{[]string{"run-vrt", "--idempotency-key", "k\x1b[2J"}, nil, "--idempotency-key takes"},
		{[]string{"status", "run_9"}, &ci.CIOptions{Tool: "get_run_status", Args: map[string]any{"runId": "run_9"}}, ""},
		{[]string{"status"}, nil, "RUN_ID"},
		{[]string{"call", "list_runs", "limit:=5"}, &ci.CIOptions{Tool: "list_runs", Args: map[string]any{"limit": json.Number("5")}, Raw: true}, ""},
		{[]string{"call", "run_vrt", "--args", `{"branch":"main"}`}, &ci.CIOptions{Tool: "run_vrt", Args: map[string]any{"branch": "main"}, Raw: true}, ""},
		{[]string{"call"}, nil, "vq ci call needs a TOOL"},
		{[]string{"call", "get_run_status", "--wait"}, nil, "unknown flag: --wait"},
	} {
		f := &cmdutil.Factory{IOStreams: &iostreams.IOStreams{In: &bytes.Buffer{}, Out: io.Discard, ErrOut: io.Discard}, Getenv: func(string) string { return "" }}
		var got *ci.CIOptions
		c := ci.NewCmdCI(f, func(_ context.Context, o *ci.CIOptions) error { got = o; return nil })
		c.SetArgs(tc.args)
		c.SetOut(io.Discard)
		c.SetErr(io.Discard)
		err := c.ExecuteContext(context.Background())
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
