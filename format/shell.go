package format

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// InvokeCommand is a suggested action as a vq invoke command line that a
// POSIX shell runs as printed: string arguments as KEY=VALUE, others as
// KEY:=JSON, each shell-quoted. Keys that the pair syntax cannot carry
// (containing = or :, or looking like a flag) fall back to --args JSON.
func InvokeCommand(a api.NextAction) string {
	parts := []string{"vq", "invoke", textsafe.ShellQuote(a.Tool)}
	keys := make([]string, 0, len(a.Args))
	for k := range a.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "" || strings.ContainsAny(k, "=:") || strings.HasPrefix(k, "-") {
			b, _ := json.Marshal(a.Args)
			return strings.Join(append(parts[:3], "--args", textsafe.ShellQuote(string(b))), " ")
		}
	}
	for _, k := range keys {
		if s, ok := a.Args[k].(string); ok {
			parts = append(parts, textsafe.ShellQuote(k+"="+s))
			continue
		}
		b, err := json.Marshal(a.Args[k])
		if err != nil {
			b = []byte(fmt.Sprint(a.Args[k]))
		}
		parts = append(parts, textsafe.ShellQuote(k+":="+string(b)))
	}
	return strings.Join(parts, " ")
}
