package mcpclient

import (
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
)

func contentOf(res *mcp.CallToolResult, structured json.RawMessage) *api.Content {
	out := &api.Content{Blocks: make([]api.ContentBlock, 0, len(res.Content)), Structured: structured}
	for _, c := range res.Content {
		if b, ok := blockOf(c); ok {
			out.Blocks = append(out.Blocks, b)
		}
	}
	return out
}

// blockOf reads one SDK block; false for a type vq does not show.
func blockOf(c mcp.Content) (api.ContentBlock, bool) {
	b := api.ContentBlock{Size: -1}
	switch c := c.(type) {
	case *mcp.TextContent:
		b.Type, b.Text, b.Annotations = api.BlockText, c.Text, annotationsOf(c.Annotations)
	case *mcp.ImageContent:
		b.Type, b.MIMEType, b.Data, b.Annotations = api.BlockImage, c.MIMEType, c.Data, annotationsOf(c.Annotations)
	case *mcp.AudioContent:
		b.Type, b.MIMEType, b.Data, b.Annotations = api.BlockAudio, c.MIMEType, c.Data, annotationsOf(c.Annotations)
	case *mcp.ResourceLink:
		b.Type, b.URI, b.Name, b.Title, b.Description, b.MIMEType, b.Annotations =
			api.BlockResourceLink, c.URI, c.Name, c.Title, c.Description, c.MIMEType, annotationsOf(c.Annotations)
		if c.Size != nil {
			b.Size = *c.Size
		}
	case *mcp.EmbeddedResource:
		b = resourceBlock(c.Resource)
		b.Annotations = annotationsOf(c.Annotations)
	default:
		return b, false
	}
	return b, true
}

func annotationsOf(a *mcp.Annotations) *api.BlockAnnotations {
	if a == nil {
		return nil
	}
	out := &api.BlockAnnotations{Priority: a.Priority, LastModified: a.LastModified}
	for _, role := range a.Audience {
		out.Audience = append(out.Audience, string(role))
	}
	return out
}

func resourceBlock(rc *mcp.ResourceContents) api.ContentBlock {
	b := api.ContentBlock{Type: api.BlockResource, Size: -1}
	if rc != nil {
		b.URI, b.MIMEType, b.Text, b.Data = rc.URI, rc.MIMEType, rc.Text, rc.Blob
	}
	return b
}

// summary is the line standing for the content: the first text's first line, else its first block's account.
func summary(c *api.Content) string {
	for _, b := range c.Blocks {
		text := strings.TrimSpace(b.Text)
		switch {
		case b.Type != api.BlockText || text == "":
			continue
		case (text[0] == '{' || text[0] == '[') && json.Valid([]byte(text)):
			// A JSON document's compact start, not its "{" line.
			return compactStart(text, summaryMax)
		}
		line, _, _ := strings.Cut(text, "\n")
		return line
	}
	switch {
	case len(c.Blocks) > 0:
		return c.Blocks[0].Describe()
	case len(c.Structured) > 0:
		return "structured content only"
	}
	return "the tool returned no content"
}

func text(c *api.Content) string {
	var parts []string
	for _, b := range c.Blocks {
		if b.Type == api.BlockText && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// summaryMax bounds the start of a JSON document a summary shows.
const summaryMax = 200

// compactStart is a valid JSON document compacted, cut at max bytes with "…".
func compactStart(doc string, max int) string {
	var b strings.Builder
	var scan api.JSONScan
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		if _, space := scan.Next(c); space {
			continue
		}
		if b.Len() == max {
			return strings.ToValidUTF8(b.String(), "") + "…"
		}
		b.WriteByte(c)
	}
	return b.String()
}
