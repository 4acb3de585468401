package api

import (
	"context"
	"encoding/json"
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
	// ReadOnly and Destructive are the server's annotations (hints, not
	// guarantees). Destructive is nil when the server did not say; MCP then
	// presumes a tool that is not read-only may be destructive.
	ReadOnly    bool      `json:"readOnly"`
	Destructive *bool     `json:"destructive,omitempty"`
	Arguments   []ToolArg `json:"arguments"`
}

// ToolArg is one property of a tool's input schema.
type ToolArg struct {
	Name        string `json:"name"`
	Type        string `json:"type,omitempty"`
	Required    bool   `json:"required"`
	Description string `json:"description,omitempty"`
}

// Writes reports whether the tool may change something: not annotated
// read-only. The TUI marks such tools before the server's confirm gate does.
func (t Tool) Writes() bool { return !t.ReadOnly }

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
	const method = MethodToolsList
	var tools []Tool
	var failure *ToolResponse
	_, err := c.withRetries(ctx, method, func() *ToolResponse {
		rec := &httpRecord{}
		rctx := context.WithValue(ctx, httpRecordKey{}, rec)
		tools, failure = nil, nil
		err := c.withSession(rctx, func(s *mcp.ClientSession) error {
			for t, err := range s.Tools(rctx, nil) {
				if err != nil {
					return err
				}
				tools = append(tools, toolFromMCP(t))
			}
			return nil
		})
		if err != nil {
			failure = c.mcpFailure(method, rec, err)
			return failure
		}
		return &ToolResponse{OK: true, Tool: method}
	})
	if err != nil {
		return nil, failure, err
	}
	return tools, failure, nil
}

func toolFromMCP(t *mcp.Tool) Tool {
	out := Tool{Name: t.Name, Title: t.Title, Description: t.Description, Arguments: []ToolArg{}}
	if a := t.Annotations; a != nil {
		out.ReadOnly = a.ReadOnlyHint
		out.Destructive = a.DestructiveHint
		if out.Title == "" {
			out.Title = a.Title
		}
	}
	var schema struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if b, err := json.Marshal(t.InputSchema); err == nil {
		_ = json.Unmarshal(b, &schema)
	}
	required := map[string]bool{}
	for _, name := range schema.Required {
		required[name] = true
	}
	for name, p := range schema.Properties {
		out.Arguments = append(out.Arguments, ToolArg{Name: name, Type: schemaType(p.Type), Required: required[name], Description: p.Description})
	}
	// Required arguments first, then by name: the order a person reads a
	// usage line in.
	slices.SortFunc(out.Arguments, func(x, y ToolArg) int {
		if x.Required != y.Required {
			if x.Required {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Name, y.Name)
	})
	return out
}

// schemaType renders a JSON Schema type, which may be a list
// (["string","null"]).
func schemaType(v any) string {
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
	return ""
}
