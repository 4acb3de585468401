package api

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool is one entry of the server's tools/list, as vq tools shows it: the
// shape of vq tools --json, not mcp.Tool's
// (TestToolsShowsEveryFactOfTheSchemaAndAnnotations).
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// ReadOnly, Destructive, Idempotent and OpenWorld are the server's
	// annotations (hints, not guarantees). Destructive and OpenWorld are nil
	// when the server did not say; MCP then presumes a tool that is not
	// read-only may be destructive, and that any tool reaches the open world.
	ReadOnly    bool  `json:"readOnly"`
	Destructive *bool `json:"destructive,omitempty"`
	Idempotent  bool  `json:"idempotent"`
	OpenWorld   *bool `json:"openWorld,omitempty"`
	// TaskSupport is the tool's execution.taskSupport (forbidden, optional
	// or required), "" when the server did not say.
	TaskSupport string    `json:"taskSupport,omitempty"`
	Arguments   []ToolArg `json:"arguments"`
	// InputSchema and OutputSchema are the schemas as the server sent them,
	// byte for byte where vq saw the bytes ($schema, $defs, $ref and all).
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Returns are the properties of OutputSchema, read as Arguments are,
	// for the text view; --json carries the schema itself.
	Returns []ToolArg `json:"-"`
}

// ToolArg is one property of a tool's input schema.
type ToolArg struct {
	Name        string `json:"name"`
	Type        string `json:"type,omitempty"`
	Required    bool   `json:"required"`
	Description string `json:"description,omitempty"`
	// Items is the item type of an array argument.
	Items string `json:"items,omitempty"`
	// Enum are the values the argument may take, each as JSON text.
	Enum []string `json:"enum,omitempty"`
	// Default is the schema's default, as JSON text.
	Default string `json:"default,omitempty"`
}

// Writes reports whether the tool may change something: not annotated
// read-only. The TUI marks such tools before the server's confirm gate does.
func (t Tool) Writes() bool { return !t.ReadOnly }

// TakesOtherArguments reports whether the input schema lets a call carry
// arguments it does not declare: unless additionalProperties is false, as
// JSON Schema has it.
func (t Tool) TakesOtherArguments() bool {
	var schema struct {
		AdditionalProperties json.RawMessage `json:"additionalProperties"`
	}
	return json.Unmarshal(t.InputSchema, &schema) != nil || string(schema.AdditionalProperties) != "false"
}

// WriteTools turns a tool list into the predicate the TUI needs; tools the
// list does not name are not marked.
func WriteTools(tools []Tool) func(tool string) bool {
	writes := make(map[string]bool, len(tools))
	for _, t := range tools {
		writes[t.Name] = t.Writes()
	}
	return func(tool string) bool { return writes[tool] }
}

// MethodToolsList is the MCP method behind vq tools, and the tool name of
// the answers made from it.
const MethodToolsList = "tools/list"

// ToolList is the data of ToolListResponse.
type ToolList struct {
	Endpoint string `json:"endpoint"`
	Tools    []Tool `json:"tools"`
}

// ToolListResponse is a tool list as scripts get every answer: one
// ToolResponse, {"endpoint", "tools"} in its data.
func ToolListResponse(endpoint string, tools []Tool) *ToolResponse {
	if tools == nil {
		tools = []Tool{}
	}
	data, _ := json.Marshal(ToolList{Endpoint: endpoint, Tools: tools}) // plain structs: cannot fail
	return &ToolResponse{
		OK: true, Tool: MethodToolsList, Summary: fmt.Sprintf("%d tools at %s", len(tools), endpoint),
		Data: data, Warnings: []string{}, NextActions: []NextAction{},
	}
}

// SchemaArgs reads the properties of an object schema, required ones
// first, then by name: the order a person reads a usage line in. A schema
// vq cannot read has no properties. jsonschema-go decodes each level of a
// schema again: its work is the schema's bytes times their depth, which
// the caller bounds.
func SchemaArgs(raw json.RawMessage) []ToolArg {
	args := []ToolArg{}
	var schema jsonschema.Schema
	if json.Unmarshal(raw, &schema) != nil {
		return args
	}
	required := map[string]bool{}
	for _, name := range schema.Required {
		required[name] = true
	}
	for name, p := range schema.Properties {
		p = cmp.Or(p, &jsonschema.Schema{})
		arg := ToolArg{Name: name, Type: schemaType(p), Required: required[name], Description: p.Description, Default: string(p.Default)}
		if p.Items != nil {
			arg.Items = schemaType(p.Items)
		}
		for _, v := range p.Enum {
			arg.Enum = append(arg.Enum, jsonText(v))
		}
		args = append(args, arg)
	}
	slices.SortFunc(args, func(x, y ToolArg) int {
		if x.Required != y.Required {
			if x.Required {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Name, y.Name)
	})
	return args
}

// jsonText is v as JSON text, < > & unescaped.
func jsonText(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // decoded from JSON: encodes again
	return strings.TrimSuffix(b.String(), "\n")
}

// SchemaTypes are the JSON Schema types a ToolArg's Type or Items names
// (schemaType writes a list as "string|null"); none for "".
func SchemaTypes(t string) []string {
	if t == "" {
		return nil
	}
	return strings.Split(t, "|")
}

// Schema is the argument's JSON Schema as vq read it: its type (or list
// of types), item type, allowed values and default; the description is
// left to the caller, which shows server text its own way.
func (a ToolArg) Schema() map[string]any {
	p := map[string]any{}
	typeValue := func(t string) any {
		if types := SchemaTypes(t); len(types) > 1 {
			return types
		}
		return t
	}
	if a.Type != "" {
		p["type"] = typeValue(a.Type)
	}
	if a.Items != "" {
		p["items"] = map[string]any{"type": typeValue(a.Items)}
	}
	var enum []any
	for _, e := range a.Enum {
		var v any
		if json.Unmarshal([]byte(e), &v) == nil {
			enum = append(enum, v)
		}
	}
	if len(enum) > 0 {
		p["enum"] = enum
	}
	var def any
	if a.Default != "" && json.Unmarshal([]byte(a.Default), &def) == nil {
		p["default"] = def
	}
	return p
}

// schemaType renders a JSON Schema type, which may be a list
// (["string","null"] is string|null), or the name of the definition a $ref
// points to (#/$defs/Point is Point) when it has no type.
func schemaType(s *jsonschema.Schema) string {
	switch {
	case s.Type != "":
		return s.Type
	case len(s.Types) > 0:
		return strings.Join(s.Types, "|")
	}
	return s.Ref[strings.LastIndex(s.Ref, "/")+1:]
}
