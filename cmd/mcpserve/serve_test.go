package mcpserve_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/cmd/mcpserve"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }

func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }

func TestServeFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		want    string // the options run with; "" when parsing must fail first
		wantErr string
	}{
		{nil, "&{ReadOnly:false Interval:0s NoImages:false HTTP: TokenFile:}", ""},
		{[]string{"--read-only", "--no-images", "--interval", "250ms"}, "&{ReadOnly:true Interval:250ms NoImages:true HTTP: TokenFile:}", ""},
		{[]string{"--http", ":8788"}, "&{ReadOnly:false Interval:0s NoImages:false HTTP:127.0.0.1:8788 TokenFile:}", ""},
		{[]string{"--http", "[::1]:0", "--token-file", "t"}, "&{ReadOnly:false Interval:0s NoImages:false HTTP:[::1]:0 TokenFile:t}", ""},
		{[]string{"--http", "192.0.2.1:80", "--token-file", "t"}, "&{ReadOnly:false Interval:0s NoImages:false HTTP:192.0.2.1:80 TokenFile:t}", ""},
		{[]string{"--http", "0.0.0.0:0"}, "", "--http 0.0.0.0:0 is not a loopback address: serving other machines needs --token-file FILE"},
		{[]string{"--http", ":8788:"}, "", "--http :8788: is not HOST:PORT"},
		{[]string{"--token-file", "t"}, "", "--token-file applies only with --http"},
		{[]string{"--interval", "0s"}, "", "--interval must be positive, got 0s"},
		{[]string{"tools"}, "", `unknown command "tools"`},
	} {
		f := &cmdutil.Factory{IOStreams: &iostreams.IOStreams{In: &bytes.Buffer{}, Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
		got := ""
		c := mcpserve.NewCmdServe(f, func(_ context.Context, o *mcpserve.ServeOptions) error { got = fmt.Sprintf("%+v", o); return nil })
		c.SetArgs(tc.args)
		c.SetOut(io.Discard)
		c.SetErr(io.Discard)
		err := c.ExecuteContext(context.Background())
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != "" {
				t.Errorf("%v: ran with %s, err %v; want an error about %s before running", tc.args, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%v:\n got %s (err %v)\nwant %s", tc.args, got, err, tc.want)
		}
	}
}

// runVQ runs the vq binary (the test binary, cmdtest.Main) with only env,
// a private config file and no keyring: stdout, stderr and its exit code.
func runVQ(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, exit int) {
	t.Helper()
	c := exec.CommandContext(testkit.Bound(t), "vq", args...)
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "VQ_NO_KEYRING=1", "VQ_CONFIG=" + filepath.Join(t.TempDir(), "config.json")}
	for k, v := range env {
		c.Env = append(c.Env, k+"="+v)
	}
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Run(); err != nil {
		failed, ok := errors.AsType[*exec.ExitError](err)
		if !ok {
			t.Fatal(err)
		}
		exit = failed.ExitCode()
	}
	return out.String(), errOut.String(), exit
}

// The MCP client of vq talks to vq's own server. The server is put behind
// streamable HTTP, the transport vq's client speaks; what vq prints must
// be what it prints talking to VisualQ directly.
func TestVQIsAClientOfItsOwnServer(t *testing.T) {
	t.Parallel()
	ts := cmdtest.NewSandbox(t, sandbox.Options{JobStep: time.Millisecond, Rate: -1})
	env := map[string]string{"VQ_BASE_URL": ts.URL, "VQ_API_KEY": sandbox.KeyAdmin}
	f := &cmdutil.Factory{
		IOStreams: &iostreams.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard},
		Getenv:    func(k string) string { return env[k] },
	}
	f.Global.NoTUI = true
	viaServe := map[string]string{"VQ_ENDPOINT": mcpserve.ServeOverHTTP(t, f)}
	for _, args := range [][]string{
		{"failures", "run_abc"},
		{"failures", "run_abc", "--json"},
		{"diff", "run_abc", "--scenario", "Homepage", "--viewport", "desktop"},
		{"invoke", "approve_vrt_results", "runId=run_abc"},
		{"failures", "run_nope"},
	} {
		wantOut, wantErr, wantExit := runVQ(t, env, args...)
		out, errOut, exit := runVQ(t, viaServe, args...)
		if out != wantOut || errOut != wantErr || exit != wantExit {
			t.Errorf("vq %v through vq mcp serve:\n%s%s(exit %d)\ndirectly:\n%s%s(exit %d)", args, out, errOut, exit, wantOut, wantErr, wantExit)
		}
	}
}
