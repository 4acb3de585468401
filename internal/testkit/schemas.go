package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// OutputSchema is a tool's outputSchema and the structuredContent the
// tool answers.
type OutputSchema struct {
	Schema any
	Answer string
}

// HostileOutputSchemas are outputSchemas whose check, by a validator that
// follows every $ref as often as it is reached, never ends: a $ref loop
// on one value (self_ref, ref_loop), $refs applied twice at each of 32
// levels, 2^32 times in all (all_of_32, any_of_32), or once at each
// level of the answer (doubling_tree, 2^40 times down a 40-deep answer),
// and 12 allOfs around a tree's schema, down an 800-deep answer: 11,000
// calls deep (deep_nesting).
func HostileOutputSchemas() map[string]OutputSchema {
	a := `{"a":1}`
	return map[string]OutputSchema{
		"self_ref": {map[string]any{"type": "object", "$ref": "#"}, a},
		"ref_loop": {map[string]any{"$ref": "#/$defs/a", "$defs": map[string]any{
			"a": map[string]any{"$ref": "#/$defs/b"}, "b": map[string]any{"type": "object", "$ref": "#/$defs/a"}}}, a},
		"all_of_32": {doubling("allOf", 32), a},
		"any_of_32": {doubling("anyOf", 32), a},
		"doubling_tree": {map[string]any{"$ref": "#/$defs/d0", "$defs": map[string]any{
			"d0": map[string]any{"allOf": []any{ref("d1"), ref("d1")}},
			"d1": map[string]any{"type": "object", "properties": map[string]any{"x": ref("d0")}}}},
			strings.Repeat(`{"x":`, 40) + "{}" + strings.Repeat("}", 40)},
		"deep_nesting": {map[string]any{"$ref": "#/$defs/n", "$defs": map[string]any{"n": wrapped(12, map[string]any{"type": "object", "properties": map[string]any{"x": ref("n")}})}},
			strings.Repeat(`{"x":`, 800) + "{}" + strings.Repeat("}", 800)},
	}
}

// doubling is a schema of levels $defs, each applying the next twice
// under keyword.
func doubling(keyword string, levels int) map[string]any {
	defs := map[string]any{fmt.Sprint("d", levels): map[string]any{}}
	for i := range levels {
		next := ref(fmt.Sprint("d", i+1))
		defs[fmt.Sprint("d", i)] = map[string]any{keyword: []any{next, next}}
	}
	return map[string]any{"$ref": "#/$defs/d0", "$defs": defs}
}

// wrapped is schema inside levels allOfs of one.
func wrapped(levels int, schema map[string]any) map[string]any {
	for range levels {
		schema = map[string]any{"allOf": []any{schema}}
	}
	return schema
}

func ref(def string) map[string]any { return map[string]any{"$ref": "#/$defs/" + def} }

// ServeOutputSchemas serves an MCP server (ServeMCP) with a tool of each
// name in tools, which lists its outputSchema and answers its
// structuredContent (and the same JSON as text), and returns its endpoint.
func ServeOutputSchemas(t testing.TB, tools map[string]OutputSchema) string {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "schemas", Version: "1"}, nil)
	for name, tool := range tools {
		server.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}, OutputSchema: tool.Schema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tool.Answer}},
					StructuredContent: json.RawMessage(tool.Answer)}, nil
			})
	}
	return ServeMCP(t, server, nil)
}
