package mcpclient_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/api/mcpclient"
	"github.com/visualq/vq/internal/testkit"
)

// --log-level reaches the server as its revision says: in each request's
// _meta on 2026-07-28, by logging/setLevel before; the messages at the
// level and above are shown either way, over both transports.
func TestLogLevelTravelsAsTheRevisionSays(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	stateless, _ := httpTestServer(t, true)
	sessions, _ := httpTestServer(t, false)
	stdio, env, _ := stdioTestServer(t)
	for name, opts := range map[string]mcpclient.Options{
		"http 2026-07-28":  {Endpoint: stateless},
		"http 2025-11-25":  {Endpoint: sessions},
		"stdio 2026-07-28": {Endpoint: stdio, StdioEnv: env},
		"stdio 2025-11-25": {Endpoint: stdio, StdioEnv: append(slices.Clone(env), "VQ_TEST_STDIO_REVISION=2025-11-25")},
	} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var notes []string
			opts.OverMCP, opts.LogLevel = true, "warning"
			opts.Notify = func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }
			c := mcpclient.New(opts)
			t.Cleanup(func() { c.Close() })
			resp, err := c.Invoke(ctx, api.Call{Tool: "log"})
			if err != nil || !resp.OK {
				t.Fatalf("%v %s", err, resp.ErrorMessage())
			}
			c.Close()
			mu.Lock()
			defer mu.Unlock()
			if !slices.Contains(notes, "server db [warning]: a warning line") || slices.ContainsFunc(notes, func(s string) bool { return strings.Contains(s, "debug") || strings.Contains(s, "refused") }) {
				t.Errorf("notices: %q", notes)
			}
		})
	}
}
