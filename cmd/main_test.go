package cmd

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/cmd/cmdtest"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/testkit"
)

// TestMain runs the tests (see tests), and is vq when run under that
// name: cmdtest.Run (testscript.RunMain) puts this binary on PATH as vq for the tests
// that need a real process (vqBinary), so none builds vq. With
// asPanickyVQ set, the test binary is vq too, with a TUI that panics on P (see
// TestTUIPanicInTmux); with asStdioTextServer, it is a stdio MCP
// server of one large text answer (testkit.ServeStdioText); with
// hostileChildArg first, a hostile stdio MCP server (see
// TestPromiseMatrix). On Linux, with asPeakMeter set, it is a meter of
// another program's peak memory before TestMain runs (peak_linux_test.go).
// With asRelease set, it is that release of vq; otherwise, and in every
// vq the tests start, the update notice is off (only the update tests
// turn it on, against a loopback feed).
func TestMain(m *testing.M) {
	if v := os.Getenv(asRelease); v != "" {
		version = v
	} else {
		os.Setenv("VQ_NO_UPDATE_NOTIFIER", "1")
	}
	if len(os.Args) > 1 && os.Args[1] == hostileChildArg {
		os.Exit(hostileChild(os.Args[2:]))
	}
	if size, err := strconv.Atoi(os.Getenv(asStdioTextServer)); err == nil {
		if err := testkit.ServeStdioText(os.Stdin, os.Stdout, size); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(asPanickyVQ) != "" {
		iostreams.TUIProbe = func(msg tea.Msg) {
			if k, ok := msg.(tea.KeyPressMsg); ok && k.Text == "P" {
				panic("injected by the test\nsecond line")
			}
		}
		os.Exit(Main())
	}
	os.Exit(cmdtest.Run(tests{m}, Main))
}

// tests runs cmd's tests: twice as many at once as there are cores,
// unless -parallel says otherwise, as they mostly wait (on child
// processes, tmux, a server's bounds) rather than compute. The race
// detector's memory keeps its run at the default.
type tests struct{ m *testing.M }

func (t tests) Run() int {
	flag.Parse()
	if !raceDetector && !flagSet("test.parallel") {
		flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
	return t.m.Run()
}

// flagSet reports whether the command line set the flag name.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
