package api

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Content is the content of a tools/call result from a server that sent no
// ToolResponse, block by block as the server sent it: what vq shows of such
// an answer (the MCP result itself is the response's data, for --json).
// Its blocks are vq's, not the SDK's, which would bring the SDK and its
// OAuth library into api (TestImportRules).
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
	Annotations *BlockAnnotations
}

// BlockAnnotations are a block's MCP annotations as vq shows them: whom
// the block is for (its audience's roles), how much it matters, and when
// it last changed. Server text: the caller sanitizes it.
type BlockAnnotations struct {
	Audience     []string
	Priority     float64
	LastModified string
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
			notes = append(notes, "audience "+strings.Join(a.Audience, ","))
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

// ContentAnswer is the answer made from a result shown block by block (a
// general MCP server's tool result, a resource, a prompt): ok, data the
// result as the server sent it, content its blocks, and summary the line
// that stands for it. A failed result is then given its Error and
// Recoverable.
func ContentAnswer(tool string, data json.RawMessage, content *Content, summary string) *ToolResponse {
	return &ToolResponse{OK: true, Tool: tool, Summary: summary, Data: data,
		Warnings: []string{}, NextActions: []NextAction{}, Content: content}
}
