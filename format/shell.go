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

// CommandPrinter prints a next action as the vq command that fronts its
// tool (vq diff run_abc --scenario Homepage --viewport desktop); ok is
// false when no command fronts the tool or the action's arguments do not
// fit it. cmd's command table is the one printer; format, which may not
// import cmd, is handed it in Options.
type CommandPrinter func(a api.NextAction) (line string, ok bool)

// ActionCommand is a suggested action as a command line that a POSIX shell
// runs as printed: the command commands prints when it prints one (the vq
// command that fronts the tool), else vq invoke; commands may be nil. A consent the server put in the arguments is
// left out: consent is the person's, given with --yes or at the prompt.
// When no command line may carry the action, line is "" and why says so:
// a tool name MCP does not allow (one starting with "-" would be read as a
// flag of vq), or an argument holding a NUL byte, which no shell passes on.
func ActionCommand(a api.NextAction, commands CommandPrinter) (line, why string) {
	if !api.ValidToolName(a.Tool) {
		return "", "the suggested tool " + strconv.Quote(textsafe.SanitizeLine(a.Tool)) + " is not a valid tool name"
	}
	if holdsNUL(a.Args) {
		return "", "an argument holds a NUL byte, which a shell cannot pass on"
	}
	a.Args = a.Call().Args // a server cannot consent for the person
	if commands != nil {
		if line, ok := commands(a); ok {
			return line, ""
		}
	}
	return InvokeCommand(a), ""
}

// holdsNUL reports a NUL byte anywhere in args: in a key, or in a string
// value at any depth.
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

// InvokeCommand is a suggested action as a vq invoke command line that a
// POSIX shell runs as printed: string arguments as KEY=VALUE, others as
// KEY:=JSON, each shell-quoted, consent left out as ActionCommand leaves
// it. Arguments that the pair syntax cannot carry (a key containing = or
// :, or looking like a flag) and those of a registry tool that vq does not
// know (a newer server's, which vq invoke refuses as pairs) fall back to
// --args JSON, which vq invoke sends as it is.
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

// PairWords are the keys of args as shell-quoted KEY=VALUE (strings) and
// KEY:=JSON (other values) words, as vq invoke and the task commands that
// pass pairs on take them. ok is false when a key cannot be written
// as a pair: empty, holding = or :, or starting with "-".
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
