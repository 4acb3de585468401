package api

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Content is an MCP tools/call result; own types keep the SDK out of api.
type Content struct {
	Blocks     []ContentBlock
	Structured json.RawMessage // structuredContent, when sent
}

// The types of content block MCP defines.
const (
	BlockText         = "text"
	BlockImage        = "image"
	BlockAudio        = "audio"
	BlockResource     = "resource"
	BlockResourceLink = "resource_link"
)

// ContentBlock is one block of a result's content.
type ContentBlock struct {
	Type        string
	Text        string
	MIMEType    string
	Data        []byte
	URI         string
	Name        string
	Title       string
	Description string
	Size        int64 // a resource link's announced size, or -1
	Annotations *BlockAnnotations
}

// BlockAnnotations are a block's MCP annotations (caller sanitizes).
type BlockAnnotations struct {
	Audience     []string
	Priority     float64
	LastModified string
}

// Binary reports a block whose payload is bytes, not text.
func (b ContentBlock) Binary() bool {
	return len(b.Data) > 0 || b.Type == BlockImage || b.Type == BlockAudio
}

// Describe is the block's one-line account (caller sanitizes).
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

// ContentAnswer is the ok answer of a block-by-block result.
func ContentAnswer(tool string, data json.RawMessage, content *Content, summary string) *ToolResponse {
	return &ToolResponse{OK: true, Tool: tool, Summary: summary, Data: data,
		Warnings: []string{}, NextActions: []NextAction{}, Content: content}
}
