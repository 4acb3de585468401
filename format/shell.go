package format

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// CommandPrinter prints a next action as the vq command fronting its tool; ok is false when none fits.
type CommandPrinter func(a api.NextAction) (line string, ok bool)

// ActionCommand is a suggested action as a POSIX command line (commands' or vq invoke), without a
// server-set consent; line is "" and why says so for an action RunnableAction refuses.
func ActionCommand(a api.NextAction, commands CommandPrinter) (line, why string) {
	if a, why = RunnableAction(a); why != "" {
		return "", why
	}
	if commands != nil {
		if line, ok := commands(a); ok {
			return line, ""
		}
	}
	return InvokeCommand(a), ""
}

// RunnableAction is a server's next action as vq may run it, without the server's consent (consent is
// the person's), or why it may not: a tool name MCP does not allow (one like a flag would set vq's
// options when pasted), an argument name that is not plain, a NUL byte in an argument (a shell cuts it).
func RunnableAction(a api.NextAction) (api.NextAction, string) {
	if !api.ValidToolName(a.Tool) {
		return a, "the suggested tool " + strconv.Quote(textsafe.SanitizeLine(a.Tool)) + " is not a valid tool name"
	}
	for k := range a.Args {
		if !textsafe.Plain(k) {
			return a, "the suggested argument " + strconv.Quote(textsafe.SanitizeLine(k)) + " is not a plain name"
		}
	}
	if holdsNUL(a.Args) {
		return a, "an argument holds a NUL byte, which a shell cannot pass on"
	}
	a.Args = a.Call().Args
	return a, ""
}

// holdsNUL reports a NUL byte in any key or string value of args.
func holdsNUL(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.IndexByte(v, 0) >= 0
	case map[string]any:
		for k, x := range v {
			if strings.IndexByte(k, 0) >= 0 || holdsNUL(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if holdsNUL(x) {
				return true
			}
		}
	}
	return false
}

// InvokeCommand is a suggested action as a vq invoke line of pairs, consent left out; arguments pairs
// cannot carry (PairWords, or unknown to a registry tool) fall back to --args JSON.
func InvokeCommand(a api.NextAction) string {
	a.Args = a.Call().Args
	parts := []string{"vq", "invoke", textsafe.ShellQuote(a.Tool)}
	pairs, ok := PairWords(a.Args, sortedKeys(a.Args))
	if spec, known := api.LookupTool(a.Tool); known && ok {
		ok = !slices.ContainsFunc(sortedKeys(a.Args), func(k string) bool { return !spec.TakesArg(k) })
	}
	if !ok {
		b, _ := json.Marshal(a.Args)
		return strings.Join(append(parts, "--args", textsafe.ShellQuote(string(b))), " ")
	}
	return strings.Join(append(parts, pairs...), " ")
}

// PairWords are args as shell-quoted KEY=VALUE (strings) and KEY:=JSON words;
// ok is false for a key that is empty, holds = or :, or starts with "-".
func PairWords(args map[string]any, keys []string) ([]string, bool) {
	words := make([]string, 0, len(keys))
	for _, k := range keys {
		if k == "" || strings.ContainsAny(k, "=:") || strings.HasPrefix(k, "-") {
			return nil, false
		}
		if s, ok := args[k].(string); ok {
			words = append(words, textsafe.ShellQuote(k+"="+s))
			continue
		}
		b, err := json.Marshal(args[k])
		if err != nil {
			b = []byte(fmt.Sprint(args[k]))
		}
		words = append(words, textsafe.ShellQuote(k+":="+string(b)))
	}
	return words, true
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
