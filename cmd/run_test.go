package cmd

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
)

// vqRun describes one in-process run of vq: the environment it sees, its
// stdin, and whether its streams pretend to be terminals.
type vqRun struct {
	Env   map[string]string
	Stdin string
	TTY   bool // stdin, stdout and stderr all terminals
	Ctx   context.Context
	// OpenURL stands in for the browser; nil is ui.OpenURL's, which a test
	// at a "terminal" that signs in must not reach.
	OpenURL func(string) error
	// Out, when set, is stdout (a file, a pipe) instead of the buffer
	// run returns.
	Out io.Writer
}

// runVQ runs the command tree in-process as Main would and returns what a
// user would see: stdout, stderr and the exit code. The environment is only
// what env holds, plus a private config dir and no keyring, so tests never
// touch the developer's own credentials.
func runVQ(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, exit int) {
	t.Helper()
	return vqRun{Env: env}.run(t, args...)
}

func (r vqRun) run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	testkit.NoLeaks(t)
	env := map[string]string{
		"VQ_CONFIG":     t.TempDir() + "/config.json",
		"VQ_NO_KEYRING": "1",
	}
	for k, v := range r.Env {
		env[k] = v
	}
	var out, errOut bytes.Buffer
	stdout := io.Writer(&out)
	if r.Out != nil {
		stdout = r.Out
	}
	f := &cmdutil.Factory{
		IOStreams: &iostreams.IOStreams{
			In: strings.NewReader(r.Stdin), Out: stdout, ErrOut: &errOut,
			InTTY: r.TTY, OutTTY: r.TTY, ErrTTY: r.TTY,
		},
		Getenv:     func(k string) string { return env[k] },
		OpenURL:    r.OpenURL,
		AppVersion: versionString(),
	}
	ctx := r.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	err := execute(ctx, f, args, func() {})
	report(f, err)
	return out.String(), errOut.String(), exitcode.Of(err)
}
