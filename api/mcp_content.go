package api

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Content is the content of a tools/call result from a server that sent no
// ToolResponse, block by block as the server sent it: what vq shows of such
// an answer (the MCP result itself is the response's data, for --json).
type Content struct {
	Blocks []ContentBlock
	// Structured is the result's structuredContent, when it sent one.
	Structured json.RawMessage
}

// The types of content block MCP defines.
const (
	BlockText         = "text"
	BlockImage        = "image"
	BlockAudio        = "audio"
	BlockResource     = "resource"
	BlockResourceLink = "resource_link"
)

// ContentBlock is one block of a result's content. Fields a type does not
// use are empty: Text for text (and text resources), Data for images,
// audio and blob resources, URI and Name for resources and links.
type ContentBlock struct {
	Type        string
	Text        string
	MIMEType    string
	Data        []byte
	URI         string
	Name        string
	Title       string
	Description string
	// Size is the size a resource link announces, or -1.
	Size        int64
	Annotations *mcp.Annotations
}

// Content is the content of an answer made from a general MCP server's
// result, and false for any other answer (a VisualQ ToolResponse, a
// client-made failure, data vq derived).
func (r *ToolResponse) Content() (*Content, bool) {
	return r.content, r.content != nil
}

// Binary reports a block whose payload is bytes (an image, audio, a blob
// resource), which a terminal cannot show as text.
func (b ContentBlock) Binary() bool {
	return len(b.Data) > 0 || b.Type == BlockImage || b.Type == BlockAudio
}

// Describe is the block's one-line account: its type, name or URI, MIME
// type and size, and its annotations. Server text: the caller sanitizes it.
func (b ContentBlock) Describe() string {
	parts := []string{b.Type}
	for _, s := range []string{b.URI, b.Name, b.MIMEType} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	switch {
	case b.Binary():
		parts = append(parts, byteSize(int64(len(b.Data))))
	case b.Size >= 0:
		parts = append(parts, byteSize(b.Size))
	}
	if b.Title != "" {
		parts = append(parts, fmt.Sprintf("%q", b.Title))
	}
	if b.Description != "" {
		parts = append(parts, "- "+b.Description)
	}
	if a := b.Annotations; a != nil {
		var notes []string
		if len(a.Audience) > 0 {
			roles := make([]string, len(a.Audience))
			for i, role := range a.Audience {
				roles[i] = string(role)
			}
			notes = append(notes, "audience "+strings.Join(roles, ","))
		}
		if a.Priority != 0 {
			notes = append(notes, fmt.Sprintf("priority %g", a.Priority))
		}
		if a.LastModified != "" {
			notes = append(notes, "modified "+a.LastModified)
		}
		if len(notes) > 0 {
			parts = append(parts, "("+strings.Join(notes, "; ")+")")
		}
	}
	return strings.Join(parts, " ")
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// contentOf reads the SDK's blocks into vq's. A block type the SDK does
// not know never gets here: the SDK refuses the result.
func contentOf(res *mcp.CallToolResult, structured json.RawMessage) *Content {
	out := &Content{Blocks: make([]ContentBlock, 0, len(res.Content)), Structured: structured}
	for _, c := range res.Content {
		if b, ok := blockOf(c); ok {
			out.Blocks = append(out.Blocks, b)
		}
	}
	return out
}

// blockOf reads one of the SDK's content blocks into vq's; false for a
// type vq does not show.
func blockOf(c mcp.Content) (ContentBlock, bool) {
	b := ContentBlock{Size: -1}
	switch c := c.(type) {
	case *mcp.TextContent:
		b.Type, b.Text, b.Annotations = BlockText, c.Text, c.Annotations
	case *mcp.ImageContent:
		b.Type, b.MIMEType, b.Data, b.Annotations = BlockImage, c.MIMEType, c.Data, c.Annotations
	case *mcp.AudioContent:
		b.Type, b.MIMEType, b.Data, b.Annotations = BlockAudio, c.MIMEType, c.Data, c.Annotations
	case *mcp.ResourceLink:
		b.Type, b.URI, b.Name, b.Title, b.Description, b.MIMEType, b.Annotations =
			BlockResourceLink, c.URI, c.Name, c.Title, c.Description, c.MIMEType, c.Annotations
		if c.Size != nil {
			b.Size = *c.Size
		}
	case *mcp.EmbeddedResource:
		b = resourceBlock(c.Resource)
		b.Annotations = c.Annotations
	default:
		return b, false
	}
	return b, true
}

// resourceBlock is a resource's contents as a block: its text, or its
// blob as bytes.
func resourceBlock(rc *mcp.ResourceContents) ContentBlock {
	b := ContentBlock{Type: BlockResource, Size: -1}
	if rc != nil {
		b.URI, b.MIMEType, b.Text, b.Data = rc.URI, rc.MIMEType, rc.Text, rc.Blob
	}
	return b
}

// summary is the one line that stands for the content where a line is
// wanted (the summary of --json, the TUI's header): the first line of its
// first text, else an account of its first block, never empty.
func (c *Content) summary() string {
	for _, b := range c.Blocks {
		if b.Type == BlockText && strings.TrimSpace(b.Text) != "" {
			return firstLine(strings.TrimSpace(b.Text))
		}
	}
	switch {
	case len(c.Blocks) > 0:
		return c.Blocks[0].Describe()
	case len(c.Structured) > 0:
		return "structured content only"
	}
	return "the tool returned no content"
}

// text is every text block, one after the other.
func (c *Content) text() string {
	var parts []string
	for _, b := range c.Blocks {
		if b.Type == BlockText && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
