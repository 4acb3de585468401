package mcpclient_test

import (
	"os"
	"testing"
)

// TestMain serves instead of testing when the binary was started as the
// stdio test server (servers_test.go).
func TestMain(m *testing.M) {
	if serveStdioIfAsked() {
		os.Exit(0)
	}
	os.Exit(m.Run())
}
