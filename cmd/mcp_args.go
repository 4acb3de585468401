package cmd

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

// typeArgs converts the KEY=VALUE strings of a call to an MCP server into
// the types the tool's input schema declares (number, integer, boolean, an
// array or object of them), as the MCP Inspector's CLI does: a server
// that validates its input would refuse limit="5". KEY:=JSON values and
// --args are the user's own JSON and stay as given; so do strings for an
// argument the schema does not type, or a tool the server does not list.
// A value that cannot convert is a usage error naming the argument.
func (p *Pipeline) typeArgs(ctx context.Context, call api.Call, pairs []string) error {
	keys := stringPairKeys(pairs)
	if len(keys) == 0 {
		return nil
	}
	client, s, err := p.connect(ctx)
	if err != nil || s.Transport != api.TransportMCP || !s.hasCredential() {
		return err
	}
	schema, ok := client.ToolSchema(ctx, call.Tool)
	if !ok {
		return nil
	}
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

// stringPairKeys are the keys whose last pair is KEY=VALUE (a string).
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

// convertArg reads value as the schema type types (a type, or several
// joined by |, as api.ToolArg has them); items is an array's item type. A
// type that admits a string keeps the string, but for true and false
// where it admits a boolean too; false when no type takes the value.
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
		if decodeJSON([]byte(value), &v) != nil {
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
		if strings.HasPrefix(strings.TrimSpace(value), "[") {
			var list []any
			err := decodeJSON([]byte(value), &list)
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
	case "object":
		var obj map[string]any
		err := decodeJSON([]byte(value), &obj)
		return obj, err == nil && obj != nil
	case "null":
		return nil, value == "null"
	default:
		return value, true // a type vq does not know: the server judges
	}
	return nil, false
}
