//go:build unix

package cmd

import (
	"testing"

	"github.com/visualq/vq/internal/testkit"
)

// An outputSchema whose check would never end is not checked: vq shows
// the answer, exits 0 and says why in a warning. Before, a $ref loop
// overflowed vq's stack (vq failures over MCP), and $refs that double at
// each of 32 levels ran on past --timeout, deaf to signals (vq invoke).
func TestAnOutputSchemaWhoseCheckWouldNotEndIsNotChecked(t *testing.T) {
	t.Parallel()
	hostile := testkit.HostileOutputSchemas()
	endpoint := testkit.ServeOutputSchemas(t, map[string]testkit.OutputSchema{"get_run_failures": hostile["self_ref"], "all_of_32": hostile["all_of_32"]})
	for _, run := range []struct {
		args []string
		why  string
	}{
		{[]string{"--transport", "mcp", "failures", "run_1"}, "get_run_failures's answer is not checked against the outputSchema the server lists for it: it applies itself to a value without going into it (a $ref loop), which never ends"},
		{[]string{"invoke", "all_of_32", "--timeout", "5s"}, "all_of_32's answer is not checked against the outputSchema the server lists for it: checking it would apply its subschemas more than 100014 times"},
	} {
		out, errOut, exit := runBuiltVQ(t, nil, append([]string{"--endpoint", endpoint}, run.args...)...)
		if exit != 0 || out != "{\"a\":1}\n" || errOut != "warning: "+run.why+"\n" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", run.args, exit, out, errOut)
		}
	}
}
