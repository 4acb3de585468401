package cmd

import (
	"testing"

	"github.com/visualq/vq/cmd/cmdtest"
)

// TestScripts runs the root command's command-line cases (usage errors,
// a missing server) in testdata/script with the test binary as vq; each
// command group runs its own beside it.
func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }
