package cmd

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/internal/testkit"
)

// TestMain removes the vq binary the process tests built. With asPanickyVQ set, the test
// binary is vq instead, with a TUI that panics on P (see
// TestTUIPanicInTmux); with asPeakMeter, it runs a program and measures
// its peak memory (peakRSS); with asStdioTextServer, it is a stdio MCP
// server of one large text answer (testkit.ServeStdioText); with
// hostileChildArg first, a hostile stdio MCP server (see
// TestPromiseMatrix).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == hostileChildArg {
		os.Exit(hostileChild(os.Args[2:]))
	}
	if file := os.Getenv(asPeakMeter); file != "" {
		os.Exit(measurePeak(file, os.Args[1:]))
	}
	if size, err := strconv.Atoi(os.Getenv(asStdioTextServer)); err == nil {
		if err := testkit.ServeStdioText(os.Stdin, os.Stdout, size); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(asPanickyVQ) != "" {
		tuiProbe = func(msg tea.Msg) {
			if k, ok := msg.(tea.KeyPressMsg); ok && k.Text == "P" {
				panic("injected by the test\nsecond line")
			}
		}
		os.Exit(Main())
	}
	code := m.Run()
	if vqBinary.dir != "" {
		os.RemoveAll(vqBinary.dir)
	}
	os.Exit(code)
}
