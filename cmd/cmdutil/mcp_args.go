package cmdutil

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/textsafe"
)

// CheckPairs checks pairs before sending, against the MCP tool listing (listed; nil
// off MCP), else the registry. --args, the user's own JSON, is never checked.
func CheckPairs(ctx context.Context, listed func(context.Context, string) (api.Tool, bool), call api.Call, pairs []string) error {
	keys := stringPairKeys(pairs)
	if len(keys) == 0 {
		return nil
	}
	if listed != nil {
		if tool, ok := listed(ctx, call.Tool); ok {
			if err := checkArgNames(call.Tool, PairKeys(pairs), argNames(tool.Arguments), tool.TakesOtherArguments()); err != nil {
				return err
			}
			return typeArgs(call, keys, tool.Arguments)
		}
	}
	return CheckKnownArgs(call.Tool, PairKeys(pairs))
}

// typeArgs converts KEY=VALUE strings to schema types, as MCP Inspector's CLI does:
// a validating server would refuse limit="5".
func typeArgs(call api.Call, keys map[string]bool, schema []api.ToolArg) error {
	for _, arg := range schema {
		if !keys[arg.Name] {
			continue
		}
		v, ok := convertArg(call.Args[arg.Name].(string), arg.Type, arg.Items)
		if !ok {
			typ := arg.Type
			if arg.Items != "" {
				typ += " of " + arg.Items
			}
			name := textsafe.SanitizeLine(arg.Name)
			return &exitcode.UsageError{
				Reason: fmt.Sprintf("argument %s=%s: %s takes %s as %s", name, textsafe.SanitizeLine(call.Args[arg.Name].(string)),
					textsafe.SanitizeLine(call.Tool), name, textsafe.SanitizeLine(typ)),
				Hint: fmt.Sprintf("give a value of that type, or send JSON as it is with %s:=VALUE", name),
			}
		}
		call.Args[arg.Name] = v
	}
	return nil
}

// stringPairKeys are the pair keys, true where the last pair is KEY=VALUE.
func stringPairKeys(pairs []string) map[string]bool {
	keys := map[string]bool{}
	for _, p := range pairs {
		key, _, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		raw, isJSON := strings.CutSuffix(key, ":")
		keys[raw] = !isJSON
	}
	return keys
}

// convertArg reads value as types (joined by |; items: array item type); a string
// type keeps it, except true/false where boolean is admitted.
func convertArg(value, types, items string) (any, bool) {
	kinds := api.SchemaTypes(types)
	if slices.Contains(kinds, "boolean") && (value == "true" || value == "false") {
		return value == "true", true
	}
	if len(kinds) == 0 || slices.Contains(kinds, "string") {
		return value, true
	}
	for _, kind := range kinds {
		if v, ok := convertScalar(value, kind, items); ok {
			return v, true
		}
	}
	return nil, false
}

func convertScalar(value, kind, items string) (any, bool) {
	switch kind {
	case "integer", "number":
		var v any
		if DecodeJSON([]byte(value), &v) != nil {
			return nil, false
		}
		num, ok := v.(json.Number)
		if ok && kind == "integer" {
			_, err := num.Int64()
			ok = err == nil
		}
		return num, ok
	case "boolean":
		switch strings.ToLower(value) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	case "array":
		return convertArray(value, items)
	case "object":
		var obj map[string]any
		err := DecodeJSON([]byte(value), &obj)
		return obj, err == nil && obj != nil
	case "null":
		return nil, value == "null"
	default:
		return value, true // a type vq does not know: the server judges
	}
	return nil, false
}

// convertArray reads value as an array of items: JSON, or a,b,c.
func convertArray(value, items string) (any, bool) {
	if strings.HasPrefix(strings.TrimSpace(value), "[") {
		var list []any
		err := DecodeJSON([]byte(value), &list)
		return list, err == nil
	}
	list := []any{}
	if value == "" {
		return list, true
	}
	for _, part := range strings.Split(value, ",") {
		v, ok := convertArg(strings.TrimSpace(part), items, "")
		if !ok {
			return nil, false
		}
		list = append(list, v)
	}
	return list, true
}
