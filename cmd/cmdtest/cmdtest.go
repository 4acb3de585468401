// Package cmdtest runs vq's command-line testscript files with the test binary
// as vq; a group's TestMain calls Main and a test Scripts:
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

// Main is a group's TestMain: the binary runs as vq when a script runs vq.
func Main(m *testing.M, main func() int) { os.Exit(Run(m, main)) }

// Run is Main returning the exit code; the binary is on PATH as vq.
func Run(m testscript.TestingM, main func() int) int {
	return testscript.RunMain(m, map[string]func() int{"vq": func() int { return vq(main) }})
}

// exitFile is where vq, run by a script, leaves its exit code for status.
const exitFile = "VQTEST_EXIT_FILE"

// vq is the test binary run as vq, also writing its exit code to exitFile.
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

// Scripts runs each testscript of dir against its own loopback sandbox. Commands:
//
//	vq ARGS     run vq with the script's env (! vq: must fail)
//	status N    the last vq exited N
//	sent N      the server received N requests since the script began
//	invoked T,U tools the invoke endpoint got, in order ('' for none)
//	calls [HEADER]  requests received, one a line: path and body, or header
//	answer [STATUS] FILE...  point VQ_BASE_URL at a server answering the files in turn
//
// Env: VQ_BASE_URL=$SANDBOX ($SANDBOX_PORT), admin key in VQ_API_KEY,
// VQ_CONFIG=$WORK/config.json, no keyring; job steps take 1ms or file sandbox-job-step's time.
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

// Sandbox is a loopback sandbox recording its requests; Hook, when set, sees
// each CI call first (n counts that tool's calls from 1) and may answer it.
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

// answer points vq at a server answering with files' bytes.
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
