package cmd

import (
	"fmt"
	"os"
	"testing"

	tea "charm.land/bubbletea/v2"
	"go.uber.org/goleak"
)

// TestMain removes the vq binary the process tests built, and fails the
// package when a goroutine outlives the tests: a command must end every
// request, watch and session it started. With asPanickyVQ set, the test
// binary is vq instead, with a TUI that panics on P (see
// TestTUIPanicInTmux); with hostileChildArg first, a hostile stdio MCP
// server (see TestPromiseMatrix).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == hostileChildArg {
		os.Exit(hostileChild(os.Args[2:]))
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
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
