// Package cmdtest runs vq's command-line cases as data: testscript files
// beside each command group, with the test binary as vq. A group's tests
// call Main from their TestMain and Scripts from a test:
//
//	func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }
//	func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }
//
// It is test support: nothing shipped imports it (arch_test.go). It
// imports sandbox and internal/testkit, never cmd: vq's main function is
// given to it, so that the root command's own tests can use it too.
package cmdtest

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// Main is a command group's TestMain: the test binary runs as vq (main,
// cmd.Main) when a script or a test runs vq, and runs the tests otherwise.
func Main(m *testing.M, main func() int) { os.Exit(Run(m, main)) }

// Run is Main for a TestMain that does more: it returns the exit code.
// Under the name vq, this binary is then on PATH (exec.LookPath("vq")).
func Run(m testscript.TestingM, main func() int) int {
	return testscript.RunMain(m, map[string]func() int{"vq": func() int { return vq(main) }})
}

// exitFile names the file where vq, run by a script, leaves its exit code
// for status.
const exitFile = "VQTEST_EXIT_FILE"

// vq is the test binary run as vq: main, its exit code also written where
// the script's status command reads it.
func vq(main func() int) int {
	code := main()
	if path := os.Getenv(exitFile); path != "" {
		if err := os.WriteFile(path, []byte(strconv.Itoa(code)), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "cmdtest:", err)
			return 1
		}
	}
	return code
}

// Scripts runs each testscript file of dir against a sandbox of its own,
// started in the test process on loopback. Besides testscript's commands
// (env, stdout, stderr, cmp, exists, ...):
//
//	vq ARGS...   runs the vq binary (the test binary) with the script's
//	             environment, its streams pipes (stdin from testscript's
//	             stdin command); it must exit 0 (! vq: must not)
//	status N     the last vq exited N
//	sent N       the server has received N requests since the script
//	             began (the sandbox, or answer's server since it began)
//	invoked T,U  the tools its invoke endpoint was called with, in order
//	             ('' for none)
//	calls [HEADER]  prints the requests the server received, one a
//	             line: the path and the body as sent, or the header's
//	             value (for stdout, cmp)
//	answer [STATUS] FILE...  vq's server (VQ_BASE_URL) is from now on
//	             one of the script's own, which answers the calls with
//	             the files' bytes in order, the last one repeating, each
//	             with the HTTP status before it (200 when none)
//
// The environment starts as the sandbox's: VQ_BASE_URL=$SANDBOX (its port
// in $SANDBOX_PORT), the admin key in VQ_API_KEY, a config file of the
// script's in VQ_CONFIG ($WORK/config.json) and no keyring;
// "env VQ_API_KEY=" takes the key away.
// Each step of the sandbox's jobs and runs takes 1ms, or the duration a
// file sandbox-job-step of the script holds (1h: runs that never end).
func Scripts(t *testing.T, dir string) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                dir,
		RequireUniqueNames: true,
		Setup: func(e *testscript.Env) error {
			tb := e.T().(testing.TB)
			testkit.NoLeaks(tb)
			step := time.Millisecond
			if b, err := os.ReadFile(filepath.Join(e.WorkDir, "sandbox-job-step")); err == nil {
				if step, err = time.ParseDuration(strings.TrimSpace(string(b))); err != nil {
					return err
				}
			}
			s := NewSandbox(tb, sandbox.Options{JobStep: step, Rate: -1})
			e.Values[stateKey{}] = &state{t: tb, server: s.Server}
			e.Setenv(exitFile, e.WorkDir+"/.vq-exit")
			e.Setenv("SANDBOX", s.URL)
			e.Setenv("SANDBOX_PORT", s.URL[strings.LastIndex(s.URL, ":")+1:])
			e.Setenv("VQ_BASE_URL", s.URL)
			e.Setenv("VQ_API_KEY", sandbox.KeyAdmin)
			e.Setenv("VQ_CONFIG", e.WorkDir+"/config.json")
			e.Setenv("VQ_NO_KEYRING", "1")
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"status":  status,
			"sent":    sent,
			"invoked": invoked,
			"answer":  answer,
			"calls":   calls,
		},
	})
}

// state is a script's: its test and the server vq is pointed at.
type (
	stateKey struct{}
	state    struct {
		t      testing.TB
		server *testkit.Server
	}
)

func server(ts *testscript.TestScript) *testkit.Server {
	return ts.Value(stateKey{}).(*state).server
}

// Sandbox is a sandbox on loopback that records the requests it receives
// (testkit.Server's Calls). Hook, when set, sees each CI call first (n
// counts that tool's calls from 1) and may answer it itself by returning
// true.
type Sandbox struct {
	*testkit.Server
	Hook func(w http.ResponseWriter, tool string, n int) bool
}

// NewSandbox starts a recording sandbox, closed when t ends.
func NewSandbox(t testing.TB, opts sandbox.Options) *Sandbox {
	t.Helper()
	s := &Sandbox{}
	next := sandbox.New(opts).Handler()
	s.Server = testkit.Wrap(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tool, isCI := strings.CutPrefix(r.URL.Path, "/api/ci/")
		if isCI && s.Hook != nil && s.Hook(w, tool, len(s.Received(tool))) {
			return
		}
		next.ServeHTTP(w, r)
	}))
	s.Key = sandbox.KeyAdmin
	return s
}

// Received are the bodies of the CI calls of tool.
func (s *Sandbox) Received(tool string) []string {
	var bodies []string
	for _, c := range s.CallsOf(tool) {
		if c.CI {
			bodies = append(bodies, string(c.Raw))
		}
	}
	return bodies
}

// count is the one argument of a command that takes a number.
func count(ts *testscript.TestScript, neg bool, args []string, usage string) int {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: %s", usage)
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	return n
}

// status checks the last vq's exit code.
func status(ts *testscript.TestScript, neg bool, args []string) {
	want := count(ts, neg, args, "status N")
	got, err := os.ReadFile(ts.Getenv(exitFile))
	ts.Check(err)
	if string(got) != strconv.Itoa(want) {
		ts.Fatalf("vq exited %s, want %d", got, want)
	}
}

// sent checks how many requests the server has received.
func sent(ts *testscript.TestScript, neg bool, args []string) {
	want := count(ts, neg, args, "sent N")
	s := server(ts)
	if got := len(s.Calls()); got != want {
		ts.Fatalf("the server received %d requests, want %d: %s", got, want, s.InvokedTools())
	}
}

// invoked checks the tools the sandbox's invoke endpoint was called with.
func invoked(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: invoked TOOL,TOOL")
	}
	if got := server(ts).InvokedTools(); got != args[0] {
		ts.Fatalf("the invoke endpoint was called with %q, want %q", got, args[0])
	}
}

// answer points vq at a server that answers the calls with files'
// bytes, for answers the sandbox never gives.
func answer(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 || neg {
		ts.Fatalf("usage: answer [STATUS] FILE...")
	}
	var replies []testkit.Reply
	status := 200
	for _, arg := range args {
		if n, err := strconv.Atoi(arg); err == nil {
			status = n
			continue
		}
		replies = append(replies, testkit.Answer(status, ts.ReadFile(arg)))
		status = 200
	}
	st := ts.Value(stateKey{}).(*state)
	st.server = testkit.NewServer(st.t, testkit.Script(replies...))
	ts.Setenv("VQ_BASE_URL", st.server.URL)
}

// calls prints the requests the server received.
func calls(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) > 1 || neg {
		ts.Fatalf("usage: calls [HEADER]")
	}
	for _, c := range server(ts).Calls() {
		what := string(c.Raw)
		if len(args) == 1 {
			what = c.Header.Get(args[0])
		}
		fmt.Fprintf(ts.Stdout(), "%s %s\n", c.Path, what)
	}
}
