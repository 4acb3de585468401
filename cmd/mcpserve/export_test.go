package mcpserve

import (
	"context"
	"testing"

	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/internal/testkit"
)

// ServeOverHTTP starts vq mcp serve's server with f, as the command does,
// and serves it over streamable HTTP on loopback: its endpoint.
func ServeOverHTTP(t *testing.T, f *cmdutil.Factory) string {
	t.Helper()
	s, err := startAgentServer(context.Background(), f, &ServeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	return testkit.ServeMCP(t, s.server, nil)
}
