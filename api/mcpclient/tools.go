package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

// ListTools lists every page of tools/list, over MCP whatever the transport; errors as ListResources.
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

// Bounds of one list: a server that always has another page cannot keep vq listing.
const (
	maxListPages = 100
	maxListItems = 10000
)

// sessionTools is the session's tool list, asked for once per session.
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

// errEndlessList is a list listPages stopped, which a retry would repeat.
var errEndlessList = errors.New("the server's list has no end")

// listPages appends pages to items until one has no cursor, within the bounds, never repeating a cursor.
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

// toolInfo is what the session's tool list says of one tool.
func (c *Client) toolInfo(ctx context.Context, name string) toolInfo {
	t, known, listed := c.listedTool(ctx, name)
	return toolInfo{listed: listed, known: known, repeatable: api.ReadOnlyTool(name, t.ReadOnly), taskRequired: t.TaskSupport == "required"}
}

// listedTool is name's entry; listed is false when the list cannot be had.
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

// ListedTool is the tool as listed, to check KEY=VALUE pairs; false when unlisted or unknown (server judges).
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

// rawTools finds the listed tools in the recorded answers, by name.
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

// maxSchemaDepth bounds the schemas vq reads arguments of (16 levels of
// properties): reading costs bytes times depth (a megabyte under 1000 levels: a minute).
const maxSchemaDepth = 32

// schemaArgs are a listed schema's properties; none past maxSchemaDepth.
func schemaArgs(schema json.RawMessage) []api.ToolArg {
	if depth, _ := shape(schema); depth > maxSchemaDepth {
		return []api.ToolArg{}
	}
	return api.SchemaArgs(schema)
}
