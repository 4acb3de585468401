package format

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/textsafe"
)

// commandArgs says how the command that fronts a tool (api.ToolSpec.Command)
// takes each of the tool's arguments: the positional ones in order, the
// others by flag. A tool with ExtraArgs takes the rest as KEY=VALUE pairs.
// A test in cmd holds each entry to the command it describes.
var commandArgs = map[string]struct {
	positional []string
	flags      map[string]string
}{
	api.ToolRunFailures:    {positional: []string{"runId"}},
	api.ToolDiffStats:      {positional: []string{"runId"}, flags: map[string]string{"scenarioLabel": "--scenario", "viewport": "--viewport"}},
	api.ToolApprove:        {positional: []string{"runId"}, flags: map[string]string{"scenarioLabel": "--scenario", "viewport": "--viewport"}},
	api.ToolCreateScenario: {flags: map[string]string{"goal": "--goal", "startPath": "--start-path"}},
	api.ToolFindScenarios:  {positional: []string{"query"}},
	api.ToolTrackingPlan:   {flags: map[string]string{"scenarioId": "--scenario"}},
	api.ToolRunTracking:    {flags: map[string]string{"scenarioId": "--scenario"}},
	api.ToolProve:          {positional: []string{"ticket"}},
	api.ToolJobStatus:      {positional: []string{"jobId"}},
	api.ToolRunStatus:      {positional: []string{"runId"}},
	api.ToolRunVRT:         {},
	api.ToolRunPerf:        {},
}

// ActionCommand is a suggested action as a command line that a POSIX shell
// runs as printed: the vq command that fronts the tool when the action's
// arguments fit it (vq diff run_abc --scenario Homepage --viewport
// desktop), else vq invoke. A consent the server put in the arguments is
// left out: consent is the person's, given with --yes or at the prompt.
// When no command line may carry the action, line is "" and why says so:
// a tool name MCP does not allow (one starting with "-" would be read as a
// flag of vq), or an argument holding a NUL byte, which no shell passes on.
func ActionCommand(a api.NextAction) (line, why string) {
	if !api.ValidToolName(a.Tool) {
		return "", "the suggested tool " + strconv.Quote(textsafe.SanitizeLine(a.Tool)) + " is not a valid tool name"
	}
	if holdsNUL(a.Args) {
		return "", "an argument holds a NUL byte, which a shell cannot pass on"
	}
	a.Args = a.Call().Args // a server cannot consent for the person
	if line, ok := taskCommand(a); ok {
		return line, ""
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

// taskCommand is a as its fronting command, when the tool has one and
// every argument fits it: positional and flag values are non-empty
// strings that do not look like a flag, every required argument is
// there, and any other argument is a pair the command passes on.
func taskCommand(a api.NextAction) (string, bool) {
	spec, known := api.LookupTool(a.Tool)
	form, described := commandArgs[a.Tool]
	if !known || !described || spec.Command == "" {
		return "", false
	}
	for _, arg := range spec.Args {
		if _, set := a.Args[arg.Name]; arg.Required && !set {
			return "", false
		}
	}
	word := func(name string) (string, bool) {
		s, isString := a.Args[name].(string)
		return textsafe.ShellQuote(s), isString && s != "" && !strings.HasPrefix(s, "-")
	}
	parts := append([]string{"vq"}, strings.Fields(spec.Command)...)
	used := map[string]bool{}
	for _, name := range form.positional {
		if _, set := a.Args[name]; !set {
			continue
		}
		w, fits := word(name)
		if !fits {
			return "", false
		}
		parts, used[name] = append(parts, w), true
	}
	for _, name := range sortedKeys(form.flags) {
		if _, set := a.Args[name]; !set {
			continue
		}
		w, fits := word(name)
		if !fits {
			return "", false
		}
		parts, used[name] = append(parts, form.flags[name], w), true
	}
	var rest []string
	for _, k := range sortedKeys(a.Args) {
		if !used[k] {
			rest = append(rest, k)
		}
	}
	if len(rest) > 0 && !spec.ExtraArgs {
		return "", false
	}
	pairs, ok := pairWords(a.Args, rest)
	return strings.Join(append(parts, pairs...), " "), ok
}

// InvokeCommand is a suggested action as a vq invoke command line that a
// POSIX shell runs as printed: string arguments as KEY=VALUE, others as
// KEY:=JSON, each shell-quoted, consent left out as ActionCommand leaves
// it. Keys that the pair syntax cannot carry (containing = or :, or
// looking like a flag) fall back to --args JSON.
func InvokeCommand(a api.NextAction) string {
	a.Args = a.Call().Args
	parts := []string{"vq", "invoke", textsafe.ShellQuote(a.Tool)}
	pairs, ok := pairWords(a.Args, sortedKeys(a.Args))
	if !ok {
		b, _ := json.Marshal(a.Args)
		return strings.Join(append(parts, "--args", textsafe.ShellQuote(string(b))), " ")
	}
	return strings.Join(append(parts, pairs...), " ")
}

// pairWords are the keys of args as shell-quoted KEY=VALUE (strings) and
// KEY:=JSON (other values) words. ok is false when a key cannot be written
// as a pair: empty, holding = or :, or starting with "-".
func pairWords(args map[string]any, keys []string) ([]string, bool) {
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
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
