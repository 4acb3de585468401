package format

import (
	"bufio"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// writeContent writes an MCP answer's content: text blocks as they are, others as a line naming them
// (binary never reaches a terminal), a failure's text as the error line's; structuredContent as data
// when no block says anything.
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
		l, err := layout.Data(c.Structured)
		if err == nil {
			layout.Text(w, "", nil, l, false)
		}
		return err
	}
	if !wrote && r.OK {
		w.WriteString(textsafe.SanitizeLine(r.Summary) + "\n")
	}
	return nil
}

// writeBlock writes server text sanitized, ending in one newline.
func writeBlock(w *bufio.Writer, text string) {
	w.WriteString(strings.TrimRight(textsafe.Sanitize(text), "\n"))
	w.WriteByte('\n')
}
