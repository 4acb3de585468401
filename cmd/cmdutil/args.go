package cmdutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
)

// ParseArgs builds a tool's args from --args (JSON inline, @FILE or -)
// overridden by KEY=VALUE and KEY:=JSON pairs, as HTTPie reads them.
func ParseArgs(pairs []string, argsFlag string, stdin io.Reader) (map[string]any, error) {
	args := map[string]any{}
	if argsFlag != "" {
		src, err := readArgsSource(argsFlag, stdin)
		if err != nil {
			return nil, err
		}
		if err := DecodeJSON(src, &args); err != nil || args == nil {
			got := "got null"
			if err != nil {
				got = err.Error()
			}
			return nil, &exitcode.UsageError{
				Reason: "--args must be a JSON object: " + got,
				Hint:   `example: --args '{"runId": "run_abc"}'`,
			}
		}
	}
	for _, p := range pairs {
		key, value, err := parsePair(p)
		if err != nil {
			return nil, err
		}
		args[key] = value
	}
	return args, nil
}

func readArgsSource(flag string, stdin io.Reader) ([]byte, error) {
	switch {
	case flag == "-":
		b, err := io.ReadAll(io.LimitReader(stdin, 64<<20))
		if err != nil {
			return nil, fmt.Errorf("reading --args from stdin: %w", err)
		}
		return b, nil
	case strings.HasPrefix(flag, "@"):
		b, err := os.ReadFile(flag[1:])
		if err != nil {
			return nil, &exitcode.UsageError{Reason: "--args " + flag + ": " + err.Error()}
		}
		return b, nil
	}
	return []byte(flag), nil
}

// parsePair reads KEY=VALUE or KEY:=JSON, split at the first =.
func parsePair(p string) (string, any, error) {
	key, value, ok := strings.Cut(p, "=")
	if !ok || key == "" || key == ":" {
		return "", nil, &exitcode.UsageError{
			Reason: fmt.Sprintf("argument %q is not KEY=VALUE or KEY:=JSON", p),
			Hint:   "examples: runId=run_abc (a string), limit:=5 (a number), tags:='[\"a\"]' (JSON)",
		}
	}
	raw, isJSON := strings.CutSuffix(key, ":")
	if !isJSON {
		return key, value, nil
	}
	var v any
	if err := DecodeJSON([]byte(value), &v); err != nil {
		return "", nil, &exitcode.UsageError{
			Reason: fmt.Sprintf("argument %s:= is not valid JSON: %v", raw, err),
			Hint:   fmt.Sprintf("for a string use %s=VALUE; JSON strings need quotes: %s:='\"text\"'", raw, raw),
		}
	}
	return raw, v, nil
}

// DecodeJSON decodes exactly one JSON document, keeping numbers exact.
func DecodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("unexpected data after the JSON value")
	}
	return nil
}

// checkArgNames refuses a pair key the tool does not take; an open tool takes
// any key but a near miss of a known one (brnch), a typo never sent.
func checkArgNames(tool string, keys, known []string, open bool) error {
	for _, key := range slices.Sorted(slices.Values(keys)) {
		if slices.Contains(known, key) {
			continue
		}
		meant := nearestName(key, known)
		if open && meant == "" {
			continue
		}
		reason := "unknown argument " + textsafe.SanitizeLine(key)
		if meant != "" {
			reason += "; did you mean " + textsafe.SanitizeLine(meant) + "?"
		}
		takes := "no arguments"
		if len(known) > 0 {
			// A server may list 20k names: the line names what fits.
			takes = format.Fitting(known, ", ", maxNamesListed)
		}
		raw := "vq invoke " + tool
		if spec, ok := api.LookupTool(tool); ok && spec.CI {
			raw = "vq ci call " + tool
		}
		return &exitcode.UsageError{Reason: reason, Hint: textsafe.SanitizeLine(fmt.Sprintf("%s takes %s; to send %s as it is: %s --args JSON", tool, takes, key, raw))}
	}
	return nil
}

// CheckKnownArgs is checkArgNames against the registry; unknown tools are the server's.
func CheckKnownArgs(tool string, keys []string) error {
	spec, known := api.LookupTool(tool)
	if !known {
		return nil
	}
	return checkArgNames(tool, keys, argNames(spec.InputArgs()), spec.ExtraArgs)
}

func argNames(args []api.ToolArg) []string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.Name
	}
	return names
}

// maxNamesListed bounds the bytes of the names a usage line lists, and
// maxSuggested the length of a name it suggests: one a person types.
const (
	maxNamesListed = 200
	maxSuggested   = 64
)

// nearestName is the known name key nearly matches (case, one edit, two over four
// bytes), or ""; only names near key's length and ≤maxSuggested: ≤64×66 steps each.
func nearestName(key string, names []string) string {
	best, bestDistance := "", 0
	key = strings.ToLower(key)
	for _, name := range names {
		limit := min(2, max(1, len(name)-3))
		if len(name) > maxSuggested || max(len(name)-len(key), len(key)-len(name)) > limit {
			continue // more than limit edits away, or no name a person types
		}
		d := EditDistance(key, strings.ToLower(name))
		if d > limit {
			continue
		}
		if best == "" || d < bestDistance {
			best, bestDistance = name, d
		}
	}
	return best
}

// PairKeys are the keys of KEY=VALUE and KEY:=JSON pairs.
func PairKeys(pairs []string) []string {
	return slices.Collect(maps.Keys(stringPairKeys(pairs)))
}

// EditDistance is the Levenshtein distance of a and b, counting bytes.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
