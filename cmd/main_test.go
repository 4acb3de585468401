package cmd

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/testkit"
)

// TestMain runs the tests two to a core and removes the vq binary the process tests built. With asPanickyVQ set, the test
// binary is vq instead, with a TUI that panics on P (see
// TestTUIPanicInTmux); with asStdioTextServer, it is a stdio MCP
// server of one large text answer (testkit.ServeStdioText); with
// hostileChildArg first, a hostile stdio MCP server (see
// TestPromiseMatrix). On Linux, with asPeakMeter set, it is a meter of
// another program's peak memory before TestMain runs (peak_linux_test.go).
func TestMain(m *testing.M) {
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
	flag.Parse()
	if !raceDetector && !flagSet("test.parallel") {
		// cmd's tests mostly wait (on child processes, tmux, a server's
		// bounds) rather than compute: twice as many run at once as there
		// are cores, unless -parallel says otherwise. The race detector's
		// memory keeps its run at the default.
		flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
	code := m.Run()
	if vqBinary.dir != "" {
		os.RemoveAll(vqBinary.dir)
	}
	os.Exit(code)
}

// flagSet reports whether the command line set the flag name.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
