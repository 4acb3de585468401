package account

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a goroutine outlives the tests: every
// call, watch and MCP session must end what it started.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
