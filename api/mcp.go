package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one entry of the server's tools/list, as vq tools shows it.
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

// ListTools asks the server for its tools (MCP tools/list, every page). It
// always speaks MCP, at MCPEndpoint, whatever the transport: tools/list has
// no invoke counterpart. A failure comes back as a client-made
// ToolResponse (tool "tools/list") so it renders and exits like any other;
// err is non-nil only when ctx ended.
func (c *Client) ListTools(ctx context.Context) ([]Tool, *ToolResponse, error) {
	var tools []Tool
	var failure *ToolResponse
	_, err := c.withRetries(ctx, MethodToolsList, func() *ToolResponse {
		tools, failure = c.sessionTools(ctx)
		if failure != nil {
			return failure
		}
		return &ToolResponse{OK: true, Tool: MethodToolsList}
	})
	if err != nil {
		return nil, failure, err
	}
	return tools, failure, nil
}

// Bounds of one tools/list: a server that always answers with another
// page (or the same cursor) cannot keep vq listing forever.
const (
	maxListPages = 100
	maxListItems = 10000
)

// sessionTools is the session's tool list, asked for once per session: a
// call reads the schema of its tool from it (argument types) and its
// annotations (whether an error may be retried).
func (c *Client) sessionTools(ctx context.Context) ([]Tool, *ToolResponse) {
	c.mcp.mu.Lock()
	cached := c.mcp.tools
	c.mcp.mu.Unlock()
	if cached != nil {
		return cached, nil
	}
	var listed []*mcp.Tool
	var session *mcp.ClientSession
	var raw map[string]rawToolMembers
	failure := c.mcpAttempt(ctx, MethodToolsList, func(ctx context.Context, s *mcp.ClientSession, rec *httpRecord) error {
		listed, session = nil, s
		err := listPages(ctx, &listed, func(cursor string) ([]*mcp.Tool, string, error) {
			res, err := s.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return res.Tools, res.NextCursor, nil
		})
		raw = rec.rawTools()
		return err
	})
	if failure != nil {
		return nil, failure
	}
	tools := make([]Tool, 0, len(listed))
	for _, t := range listed {
		tools = append(tools, toolFromMCP(t, raw[t.Name]))
	}
	c.mcp.mu.Lock()
	if c.mcp.session == session {
		c.mcp.tools = tools
	}
	c.mcp.mu.Unlock()
	return tools, nil
}

// errEndlessList is a list listPages stopped: the server's fault, which
// asking again would repeat.
var errEndlessList = errors.New("the server's list has no end")

// listPages appends to items page after page (page gets a cursor and
// answers a page's items and the next cursor) until a page has no cursor,
// within maxListPages and maxListItems, and never asking twice with the
// same cursor.
func listPages[T any](ctx context.Context, items *[]T, page func(cursor string) ([]T, string, error)) error {
	seen := map[string]bool{}
	cursor := ""
	for n := 0; ; n++ {
		if n == maxListPages || len(*items) >= maxListItems {
			return fmt.Errorf("%w: it goes on past %d pages or %d items; stopped there", errEndlessList, maxListPages, maxListItems)
		}
		got, c, err := page(cursor)
		if err != nil {
			return err
		}
		*items = append(*items, got...)
		if c == "" {
			return nil
		}
		if seen[c] {
			return fmt.Errorf("%w: it repeats its cursor %q", errEndlessList, c)
		}
		seen[c] = true
		cursor = c
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// toolInfo is what the session's tool list says of one tool; nothing
// (listed false) when the list cannot be had.
func (c *Client) toolInfo(ctx context.Context, name string) toolInfo {
	t, known, listed := c.listedTool(ctx, name)
	return toolInfo{listed: listed, known: known, repeatable: t.ReadOnly || t.Idempotent, taskRequired: t.TaskSupport == "required"}
}

// listedTool is the session's tools/list entry of name; known is false
// when the list has none, listed false when the list cannot be had.
func (c *Client) listedTool(ctx context.Context, name string) (t Tool, known, listed bool) {
	tools, failure := c.sessionTools(ctx)
	if failure != nil {
		return Tool{}, false, false
	}
	for _, t := range tools {
		if t.Name == name {
			return t, true, true
		}
	}
	return Tool{}, false, true
}

// ListedTool is the tool as the server lists it, for checking KEY=VALUE
// pairs against the arguments it declares and reading them as the types it
// expects; false when the server does not list the tool (or the list
// cannot be had: the server then judges the arguments itself).
func (c *Client) ListedTool(ctx context.Context, name string) (Tool, bool) {
	t, known, _ := c.listedTool(ctx, name)
	return t, known
}

// rawToolMembers are the members of a listed tool vq keeps as sent.
type rawToolMembers struct {
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Execution    struct {
		TaskSupport string `json:"taskSupport"`
	} `json:"execution"`
}

// rawTools finds the listed tools in the recorded tools/list answers, by
// name.
func (r *httpRecord) rawTools() map[string]rawToolMembers {
	out := map[string]rawToolMembers{}
	r.eachMessage(func(doc []byte) {
		var msg struct {
			Result struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal(doc, &msg) != nil {
			return
		}
		for _, t := range msg.Result.Tools {
			var member struct {
				Name string `json:"name"`
				rawToolMembers
			}
			if json.Unmarshal(t, &member) == nil {
				out[member.Name] = member.rawToolMembers
			}
		}
	})
	return out
}

func toolFromMCP(t *mcp.Tool, raw rawToolMembers) Tool {
	out := Tool{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: raw.InputSchema, OutputSchema: raw.OutputSchema, TaskSupport: raw.Execution.TaskSupport}
	if out.InputSchema == nil {
		out.InputSchema, _ = json.Marshal(t.InputSchema) // decoded from JSON: encodes again
	}
	if out.OutputSchema == nil && t.OutputSchema != nil {
		out.OutputSchema, _ = json.Marshal(t.OutputSchema)
	}
	if a := t.Annotations; a != nil {
		out.ReadOnly, out.Destructive, out.Idempotent, out.OpenWorld = a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint
		if out.Title == "" {
			out.Title = a.Title
		}
	}
	out.Arguments = schemaArgs(out.InputSchema)
	out.Returns = schemaArgs(out.OutputSchema)
	return out
}

// schemaArgs reads the properties of an object schema, required ones
// first, then by name: the order a person reads a usage line in. A schema
// vq cannot read has no properties.
func schemaArgs(raw json.RawMessage) []ToolArg {
	type property struct {
		Type        any               `json:"type"`
		Ref         string            `json:"$ref"`
		Description string            `json:"description"`
		Enum        []json.RawMessage `json:"enum"`
		Default     json.RawMessage   `json:"default"`
		Items       struct {
			Type any    `json:"type"`
			Ref  string `json:"$ref"`
		} `json:"items"`
	}
	var schema struct {
		Properties map[string]property `json:"properties"`
		Required   []string            `json:"required"`
	}
	_ = json.Unmarshal(raw, &schema)
	required := map[string]bool{}
	for _, name := range schema.Required {
		required[name] = true
	}
	args := []ToolArg{}
	for name, p := range schema.Properties {
		arg := ToolArg{Name: name, Type: schemaType(p.Type, p.Ref), Required: required[name], Description: p.Description,
			Items: schemaType(p.Items.Type, p.Items.Ref), Default: string(p.Default)}
		for _, v := range p.Enum {
			arg.Enum = append(arg.Enum, string(v))
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
// (["string","null"]), or the name of the definition a $ref points to
// (#/$defs/Point is Point) when it has no type.
func schemaType(v any, ref string) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		var parts []string
		for _, p := range t {
			if s, ok := p.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "|")
	}
	if ref != "" {
		return ref[strings.LastIndex(ref, "/")+1:]
	}
	return ""
}
