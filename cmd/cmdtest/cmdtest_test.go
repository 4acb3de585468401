package cmdtest_test

import (
	"testing"

	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/cmdtest"
)

func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }

// TestScripts checks the kit itself: vq is the test binary, its exit code
// and streams reach the script, and the sandbox records what it got.
func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }
