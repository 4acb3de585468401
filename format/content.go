package format

import (
	"bufio"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// writeContent writes the content of a general MCP server's answer, block
// by block: text as the block it is (its lines kept), every other block as
// one line saying what it is (type, URI, name, MIME type, size,
// annotations), an embedded text resource followed by its text. Binary
// payloads never reach the terminal (--save-dir saves them). For a failure
// the text is the error line's message, so only the other blocks are
// written. structuredContent is laid out as data when no block says
// anything.
func writeContent(w *bufio.Writer, r *api.ToolResponse) error {
	c, wrote := r.Content, false
	for _, b := range c.Blocks {
		if b.Type == api.BlockText {
			if r.OK {
				writeBlock(w, b.Text)
				wrote = true
			}
			continue
		}
		w.WriteString("[" + textsafe.SanitizeLine(b.Describe()) + "]\n")
		wrote = true
		if b.Type == api.BlockResource && b.Text != "" {
			writeBlock(w, b.Text)
		}
	}
	if !wrote && len(c.Structured) > 0 {
		return layout.Text(w, "", nil, c.Structured, nil, false)
	}
	if !wrote && r.OK {
		w.WriteString(textsafe.SanitizeLine(r.Summary) + "\n")
	}
	return nil
}

// writeBlock writes server text as a block of lines, sanitized, ending in
// one newline.
func writeBlock(w *bufio.Writer, text string) {
	w.WriteString(strings.TrimRight(textsafe.Sanitize(text), "\n"))
	w.WriteByte('\n')
}
