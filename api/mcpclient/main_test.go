package mcpclient_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a goroutine outlives the tests: every
// call, watch and MCP session must end what it started. Started as the
// stdio test server (servers_test.go), the binary serves instead.
func TestMain(m *testing.M) {
	if serveStdioIfAsked() {
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
