//go:build unix

package mcpclient_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/internal/testkit"
)

// A stdio server's message past the cap ends the call with the error an
// HTTP answer past the cap has, not as a crash, and is not sent again.
func TestStdioMessagePastTheCapIsTooLarge(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	script := filepath.Join(dir, "endless.sh")
	// Answers the first request with a string that never ends.
	os.WriteFile(script, []byte(`echo start >>"$1"
read line
printf '{"jsonrpc":"2.0","id":1,"result":"'
exec yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 2>/dev/null | tr -d '\n' 2>/dev/null
`), 0o644)
	c := mcpclient.New(mcpclient.Options{Options: api.Options{MaxBodyBytes: 1 << 20}, OverMCP: true, Endpoint: "stdio:sh " + script + " " + starts})
	t.Cleanup(func() { c.Close() })

	resp, err := c.Invoke(ctx, api.Call{Tool: "anything"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.OK || resp.ErrorCode() != api.CodeHTTPError || !strings.Contains(resp.ErrorMessage(), "response body too large: more than 1048576 bytes") {
		t.Fatalf("got %s: %s", resp.ErrorCode(), resp.ErrorMessage())
	}
	c.Close()
	if got, _ := os.ReadFile(starts); string(got) != "start\n" {
		t.Errorf("the server was started %d times, want once", strings.Count(string(got), "start"))
	}
}
