package cmd

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain removes the vq binary the process tests built, and fails the
// package when a goroutine outlives the tests: a command must end every
// request, watch and session it started.
func TestMain(m *testing.M) {
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
