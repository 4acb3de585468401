package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/visualq/vq/internal/exitcode"
)

// parseArgs builds a tool's args from --args (a JSON object given inline, as
// @FILE, or - for stdin) overridden by KEY=VALUE (a string) and KEY:=JSON (a
// raw JSON value) pairs, as HTTPie reads them.
func parseArgs(pairs []string, argsFlag string, stdin io.Reader) (map[string]any, error) {
	args := map[string]any{}
	if argsFlag != "" {
		src, err := readArgsSource(argsFlag, stdin)
		if err != nil {
			return nil, err
		}
		if err := decodeJSON(src, &args); err != nil || args == nil {
			return nil, &exitcode.UsageError{
				Reason: "--args must be a JSON object: " + errText(err, "got null"),
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

// parsePair reads KEY=VALUE or KEY:=JSON. The first = splits key from value;
// a key ending in : marks the value as JSON.
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
	if err := decodeJSON([]byte(value), &v); err != nil {
		return "", nil, &exitcode.UsageError{
			Reason: fmt.Sprintf("argument %s:= is not valid JSON: %v", raw, err),
			Hint:   fmt.Sprintf("for a string use %s=VALUE; JSON strings need quotes: %s:='\"text\"'", raw, raw),
		}
	}
	return raw, v, nil
}

// decodeJSON decodes exactly one JSON document, keeping numbers exact.
func decodeJSON(b []byte, v any) error {
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

func errText(err error, fallback string) string {
	if err != nil {
		return err.Error()
	}
	return fallback
}
