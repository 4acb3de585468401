package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

// ListTools asks the server for its tools (MCP tools/list, every page). It
// always speaks MCP, at MCPEndpoint, whatever the transport: tools/list has
// no invoke counterpart. A failure comes back as a client-made
// ToolResponse (tool "tools/list") so it renders and exits like any other;
// err is non-nil only when ctx ended.
func (c *Client) ListTools(ctx context.Context) ([]api.Tool, *api.ToolResponse, error) {
	var tools []api.Tool
	var failure *api.ToolResponse
	_, err := c.Retry(ctx, api.MethodToolsList, func() *api.ToolResponse {
		tools, failure = c.sessionTools(ctx)
		if failure != nil {
			return failure
		}
		return &api.ToolResponse{OK: true, Tool: api.MethodToolsList}
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
func (c *Client) sessionTools(ctx context.Context) ([]api.Tool, *api.ToolResponse) {
	c.mcp.mu.Lock()
	cached := c.mcp.tools
	c.mcp.mu.Unlock()
	if cached != nil {
		return cached, nil
	}
	var listed []*mcp.Tool
	var session *mcp.ClientSession
	var raw map[string]rawToolMembers
	failure := c.mcpAttempt(ctx, api.MethodToolsList, func(ctx context.Context, s *mcp.ClientSession, rec *httpRecord) error {
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
	tools := make([]api.Tool, 0, len(listed))
	for _, t := range listed {
		tool := toolFromMCP(t, raw[t.Name])
		tools = append(tools, tool)
		c.mcp.readOnly.Store(tool.Name, tool.ReadOnly)
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
	return toolInfo{listed: listed, known: known, repeatable: api.ReadOnlyTool(name, t.ReadOnly), taskRequired: t.TaskSupport == "required"}
}

// listedTool is the session's tools/list entry of name; known is false
// when the list has none, listed false when the list cannot be had.
func (c *Client) listedTool(ctx context.Context, name string) (t api.Tool, known, listed bool) {
	tools, failure := c.sessionTools(ctx)
	if failure != nil {
		return api.Tool{}, false, false
	}
	for _, t := range tools {
		if t.Name == name {
			return t, true, true
		}
	}
	return api.Tool{}, false, true
}

// ListedTool is the tool as the server lists it, for checking KEY=VALUE
// pairs against the arguments it declares and reading them as the types it
// expects; false when the server does not list the tool (or the list
// cannot be had: the server then judges the arguments itself).
func (c *Client) ListedTool(ctx context.Context, name string) (api.Tool, bool) {
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

func toolFromMCP(t *mcp.Tool, raw rawToolMembers) api.Tool {
	out := api.Tool{Name: t.Name, Title: t.Title, Description: t.Description,
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
	out.Arguments, out.Returns = schemaArgs(out.InputSchema), schemaArgs(out.OutputSchema)
	return out
}

// maxSchemaDepth is how deep a schema vq reads the arguments of may nest
// (16 levels of properties, past what tools declare): reading one costs its
// bytes times its depth.
const maxSchemaDepth = 32

// schemaArgs are the properties of a listed schema (api.SchemaArgs); none
// when it nests past maxSchemaDepth, as reading it would cost its bytes
// times its depth (a megabyte under 1000 levels: a minute).
func schemaArgs(schema json.RawMessage) []api.ToolArg {
	if depth, _ := shape(schema); depth > maxSchemaDepth {
		return []api.ToolArg{}
	}
	return api.SchemaArgs(schema)
}
