package cmd

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// TestScripts runs the command-line cases of testdata/script, one
// testscript each (Go's own cmd/go tests are written so): what a person
// types, and the exit code, stdout and stderr vq answers, against a
// sandbox of the script's own in this process. Besides testscript's
// commands (env, stdout, stderr, cmp, exists, ...):
//
//	vq ARGS...   runs vq in-process with the script's environment, its
//	             streams pipes; it must exit 0 (! vq: must not)
//	status N     the last vq exited N
//	sent N       the sandbox has received N requests since the script began
//	invoked T,U  the tools its invoke endpoint was called with, in order
//	             ('' for none)
//
// The environment starts as the sandbox's: VQ_BASE_URL=$SANDBOX, the admin
// key in VQ_API_KEY, a config file of the script's in VQ_CONFIG
// ($WORK/config.json) and no keyring; "env VQ_API_KEY=" takes the key away.
// Cases that a table or a walk of the command tree generates, or that
// need a terminal or a server of their own, stay Go tests.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireUniqueNames:  true,
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			tb := e.T().(testing.TB)
			testkit.NoLeaks(tb)
			s := newRecordingSandbox(tb, sandbox.Options{JobStep: time.Millisecond, Rate: -1})
			e.Values[scriptSandbox{}] = s
			e.Values[scriptExit{}] = new(int)
			e.Setenv("SANDBOX", s.URL)
			e.Setenv("VQ_BASE_URL", s.URL)
			e.Setenv("VQ_API_KEY", sandbox.KeyAdmin)
			e.Setenv("VQ_CONFIG", e.WorkDir+"/config.json")
			e.Setenv("VQ_NO_KEYRING", "1")
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"vq":      scriptVQ,
			"status":  scriptStatus,
			"sent":    scriptSent,
			"invoked": scriptInvoked,
		},
	})
}

type (
	scriptSandbox struct{}
	scriptExit    struct{}
)

// scriptVQ runs vq as Main would, in-process, with the script's
// environment (a file it names is best named under $WORK: vq's working
// directory is the test's).
func scriptVQ(ts *testscript.TestScript, neg bool, args []string) {
	var stdout, stderr bytes.Buffer
	f := &cmdutil.Factory{
		IOStreams:  &iostreams.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr},
		Getenv:     ts.Getenv,
		AppVersion: versionString(),
	}
	err := execute(context.Background(), f, args)
	report(f, err)
	code := exitcode.Of(err)
	fmt.Fprint(ts.Stdout(), stdout.String())
	fmt.Fprint(ts.Stderr(), stderr.String())
	*exitOf(ts) = code
	switch {
	case neg && code == 0:
		ts.Fatalf("vq exited 0")
	case !neg && code != 0:
		ts.Fatalf("vq exited %d", code)
	}
}

func exitOf(ts *testscript.TestScript) *int { return ts.Value(scriptExit{}).(*int) }

// scriptStatus checks the last vq's exit code.
func scriptStatus(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: status N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	if got := *exitOf(ts); got != want {
		ts.Fatalf("vq exited %d, want %d", got, want)
	}
}

// scriptSent checks how many requests the sandbox has received.
func scriptSent(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: sent N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	s := ts.Value(scriptSandbox{}).(*recordingSandbox)
	if got := len(s.Calls()); got != want {
		ts.Fatalf("the sandbox received %d requests, want %d: %s", got, want, s.invokedTools())
	}
}

// scriptInvoked checks the tools the sandbox's invoke endpoint was called
// with, in order.
func scriptInvoked(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: invoked TOOL,TOOL")
	}
	if got := ts.Value(scriptSandbox{}).(*recordingSandbox).invokedTools(); got != args[0] {
		ts.Fatalf("the invoke endpoint was called with %q, want %q", got, args[0])
	}
}
