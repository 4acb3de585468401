package api

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool is one tools/list entry in vq tools --json's shape.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// The server's annotations (hints, not guarantees); Destructive and
	// OpenWorld are nil when it did not say.
	ReadOnly    bool      `json:"readOnly"`
	Destructive *bool     `json:"destructive,omitempty"`
	Idempotent  bool      `json:"idempotent"`
	OpenWorld   *bool     `json:"openWorld,omitempty"`
	TaskSupport string    `json:"taskSupport,omitempty"` // execution.taskSupport
	Arguments   []ToolArg `json:"arguments"`
	// The schemas byte for byte as the server sent them, where vq saw them.
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Returns      []ToolArg       `json:"-"` // OutputSchema's properties, for the text view
}

// ToolArg is one property of a tool's input schema.
type ToolArg struct {
	Name        string `json:"name"`
	Type        string `json:"type,omitempty"`
	Required    bool   `json:"required"`
	Description string `json:"description,omitempty"`
	Items       string `json:"items,omitempty"` // an array's item type
	// Enum and Default are JSON text.
	Enum    []string `json:"enum,omitempty"`
	Default string   `json:"default,omitempty"`
}

// TakesOtherArguments reports additionalProperties not false.
func (t Tool) TakesOtherArguments() bool {
	var schema struct {
		AdditionalProperties json.RawMessage `json:"additionalProperties"`
	}
	return json.Unmarshal(t.InputSchema, &schema) != nil || string(schema.AdditionalProperties) != "false"
}

// WriteTools reports the listed tools not annotated read-only (TUI marks).
func WriteTools(tools []Tool) func(tool string) bool {
	writes := make(map[string]bool, len(tools))
	for _, t := range tools {
		writes[t.Name] = !t.ReadOnly
	}
	return func(tool string) bool { return writes[tool] }
}

// MethodToolsList is the MCP method behind vq tools, and its answers' tool.
const MethodToolsList = "tools/list"

// ToolList is the data of ToolListResponse.
type ToolList struct {
	Endpoint string `json:"endpoint"`
	Tools    []Tool `json:"tools"`
}

// ToolListResponse is a tool list as a ToolResponse, ToolList its data.
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

// SchemaArgs reads an object schema's properties, required first; work is
// bytes times depth (jsonschema-go re-decodes), which the caller bounds.
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

// SchemaTypes splits a ToolArg's Type or Items ("string|null"); none for "".
func SchemaTypes(t string) []string {
	if t == "" {
		return nil
	}
	return strings.Split(t, "|")
}

// Schema is the argument's JSON Schema, without the description.
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

// schemaType renders a type: a list as string|null, a bare $ref by its name.
func schemaType(s *jsonschema.Schema) string {
	switch {
	case s.Type != "":
		return s.Type
	case len(s.Types) > 0:
		return strings.Join(s.Types, "|")
	}
	return s.Ref[strings.LastIndex(s.Ref, "/")+1:]
}
