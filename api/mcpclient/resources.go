package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

// The MCP methods behind vq mcp resources, resource, prompts and prompt; their answers' tool names.
const (
	MethodResourcesList = "resources/list"
	MethodResourcesRead = "resources/read"
	MethodPromptsList   = "prompts/list"
	MethodPromptsGet    = "prompts/get"
)

// ResourceList is the data of ListResources' answer.
type ResourceList struct {
	Endpoint  string                  `json:"endpoint"`
	Resources []*mcp.Resource         `json:"resources"`
	Templates []*mcp.ResourceTemplate `json:"resourceTemplates"`
}

// PromptList is the data of ListPrompts' answer.
type PromptList struct {
	Endpoint string        `json:"endpoint"`
	Prompts  []*mcp.Prompt `json:"prompts"`
}

// ListResources lists every page of resources and templates; failures are ToolResponses, err only ctx ending.
func (c *Client) ListResources(ctx context.Context) (*api.ToolResponse, ResourceList, error) {
	list := ResourceList{Endpoint: c.MCPEndpoint(), Resources: []*mcp.Resource{}, Templates: []*mcp.ResourceTemplate{}}
	failure, err := c.mcpRead(ctx, MethodResourcesList, func(ctx context.Context, s *mcp.ClientSession, _ *httpRecord) error {
		list.Resources, list.Templates = list.Resources[:0], list.Templates[:0]
		if caps := s.InitializeResult().Capabilities; caps == nil || caps.Resources == nil {
			return nil
		}
		err := listPages(ctx, &list.Resources, func(cursor string) ([]*mcp.Resource, string, error) {
			res, err := s.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return res.Resources, res.NextCursor, nil
		})
		if err != nil {
			return err
		}
		return listPages(ctx, &list.Templates, func(cursor string) ([]*mcp.ResourceTemplate, string, error) {
			res, err := s.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return res.ResourceTemplates, res.NextCursor, nil
		})
	})
	if failure != nil || err != nil {
		return failure, list, err
	}
	summary := fmt.Sprintf("%d resources and %d resource templates at %s", len(list.Resources), len(list.Templates), list.Endpoint)
	return listResponse(MethodResourcesList, summary, list), list, nil
}

// ListPrompts lists the server's prompts, as ListResources.
func (c *Client) ListPrompts(ctx context.Context) (*api.ToolResponse, PromptList, error) {
	list := PromptList{Endpoint: c.MCPEndpoint(), Prompts: []*mcp.Prompt{}}
	failure, err := c.mcpRead(ctx, MethodPromptsList, func(ctx context.Context, s *mcp.ClientSession, _ *httpRecord) error {
		list.Prompts = list.Prompts[:0]
		if caps := s.InitializeResult().Capabilities; caps == nil || caps.Prompts == nil {
			return nil
		}
		return listPages(ctx, &list.Prompts, func(cursor string) ([]*mcp.Prompt, string, error) {
			res, err := s.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return res.Prompts, res.NextCursor, nil
		})
	})
	if failure != nil || err != nil {
		return failure, list, err
	}
	return listResponse(MethodPromptsList, fmt.Sprintf("%d prompts at %s", len(list.Prompts), list.Endpoint), list), list, nil
}

func listResponse(method, summary string, list any) *api.ToolResponse {
	data, _ := json.Marshal(list) // the SDK's own types: cannot fail
	return &api.ToolResponse{OK: true, Tool: method, Summary: summary, Data: data, Warnings: []string{}, NextActions: []api.NextAction{}}
}

// ReadResource reads one resource: its contents are the answer's blocks, its raw result the data.
func (c *Client) ReadResource(ctx context.Context, uri string) (*api.ToolResponse, error) {
	var res *mcp.ReadResourceResult
	var raw json.RawMessage
	failure, err := c.mcpRead(ctx, MethodResourcesRead, func(ctx context.Context, s *mcp.ClientSession, rec *httpRecord) error {
		var err error
		res, err = s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		raw = rec.resultWith("contents")
		return err
	})
	if failure != nil || err != nil {
		return failure, err
	}
	content := &api.Content{Blocks: make([]api.ContentBlock, 0, len(res.Contents))}
	for _, rc := range res.Contents {
		content.Blocks = append(content.Blocks, resourceBlock(rc))
	}
	return contentResponse(MethodResourcesRead, res, raw, content, summary(content)), nil
}

// GetPrompt gets a prompt: each message is a line naming its role, then its content.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*api.ToolResponse, error) {
	var res *mcp.GetPromptResult
	var raw json.RawMessage
	failure, err := c.mcpRead(ctx, MethodPromptsGet, func(ctx context.Context, s *mcp.ClientSession, rec *httpRecord) error {
		var err error
		res, err = s.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		raw = rec.resultWith("messages")
		return err
	})
	if failure != nil || err != nil {
		return failure, err
	}
	content := &api.Content{Blocks: make([]api.ContentBlock, 0, 2*len(res.Messages))}
	for _, m := range res.Messages {
		content.Blocks = append(content.Blocks, api.ContentBlock{Type: api.BlockText, Text: "[" + string(m.Role) + "]", Size: -1})
		if b, ok := blockOf(m.Content); ok {
			content.Blocks = append(content.Blocks, b)
		}
	}
	summary := res.Description
	if summary == "" {
		summary = fmt.Sprintf("prompt %s: %d messages", name, len(res.Messages))
	}
	return contentResponse(MethodPromptsGet, res, raw, content, summary), nil
}

// contentResponse is the answer from a result shown block by block, raw (when recorded) its data.
func contentResponse(method string, res any, raw json.RawMessage, content *api.Content, summary string) *api.ToolResponse {
	if len(raw) == 0 {
		raw, _ = json.Marshal(res) // the SDK's own types: cannot fail
	}
	return api.ContentAnswer(method, raw, content, summary)
}

// mcpRead runs a read-only request, retried as the contract retries; err is non-nil only when ctx ended.
func (c *Client) mcpRead(ctx context.Context, method string, op func(context.Context, *mcp.ClientSession, *httpRecord) error) (*api.ToolResponse, error) {
	var failure *api.ToolResponse
	_, err := c.Retry(ctx, method, func() *api.ToolResponse {
		if failure = c.mcpAttempt(ctx, method, op); failure != nil {
			return failure
		}
		return &api.ToolResponse{OK: true, Tool: method}
	})
	return failure, err
}

// mcpAttempt runs op once within the timeout; nil when it succeeded.
func (c *Client) mcpAttempt(ctx context.Context, method string, op func(context.Context, *mcp.ClientSession, *httpRecord) error) *api.ToolResponse {
	rec := newHTTPRecord()
	rctx, cancel := context.WithTimeout(context.WithValue(ctx, httpRecordKey{}, rec), c.opts.Timeout)
	defer cancel()
	if err := c.withSession(rctx, rec, func(s *mcp.ClientSession) error { return op(rctx, s, rec) }); err != nil {
		return c.mcpFailure(method, rec, err)
	}
	return nil
}
