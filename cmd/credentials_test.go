package cmd

import (
	"strings"
	"testing"

	"github.com/visualq/vq/sandbox"
)

// Host names are case-insensitive: plain http to LOCALHOST is loopback,
// and the call goes (with its key, also to an --endpoint on the base
// URL's host spelt otherwise) to the server there.
func TestLoopbackHostNamesAreCaseInsensitive(t *testing.T) {
	t.Parallel()
	ts := startLoggedSandbox(t)
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	env := map[string]string{"VQ_API_KEY": sandbox.KeyAdmin}
	for _, args := range [][]string{
		{"failures", "run_abc", "--base-url", "http://LOCALHOST:" + port},
		{"failures", "run_abc", "--base-url", "http://LocalHost:" + port, "--transport", "mcp"},
		{"tools", "--base-url", "http://localhost:" + port, "--endpoint", "HTTP://LOCALHOST:" + port + "/api/mcp", "--json"},
	} {
		ts.took()
		if _, stderr, exit := runVQ(t, env, args...); exit != 0 {
			t.Errorf("%v: exit %d: %s", args, exit, stderr)
		}
		if got := ts.took(); len(got) == 0 {
			t.Errorf("%v: nothing reached the server", args)
		}
	}
}
