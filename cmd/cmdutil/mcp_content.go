package cmdutil

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/privatefile"
	"github.com/visualq/vq/internal/textsafe"
)

// saveContent writes the binary blocks of an MCP answer into --save-dir.
// The names are vq's own (tool-N.ext): nothing the server sends names a
// file, and none is written over what is no regular file.
func saveContent(print format.Printer, dir string, structured bool, resp *api.ToolResponse) error {
	if resp.Content == nil {
		return nil
	}
	n := 0
	for _, b := range resp.Content.Blocks {
		if !b.Binary() {
			continue
		}
		n++
		if dir == "" {
			continue
		}
		path := filepath.Join(dir, fmt.Sprintf("%s-%d%s", fileSafe(resp.Tool), n, extensionOf(b.MIMEType)))
		err := privatefile.WriteReport(path, func(w io.Writer) error {
			_, err := w.Write(b.Data)
			return err
		})
		if err != nil {
			return fmt.Errorf("--save-dir: %w", err)
		}
		print.Note("saved " + textsafe.SanitizeLine(b.Describe()) + " to " + textsafe.SanitizeLine(path))
	}
	if n > 0 && dir == "" && !structured {
		print.Hint(fmt.Sprintf("the answer holds %d binary block(s); save them with --save-dir DIR", n))
	}
	return nil
}

// fileSafe keeps the ASCII letters, digits, ., - and _ of a tool name.
func fileSafe(name string) string {
	safe := strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '-' || r == '_' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, name)
	if strings.Trim(safe, "._") == "" {
		return "content"
	}
	return strings.TrimLeft(safe, ".")
}

// extensions name files by their MIME type; any other type is .bin.
var extensions = map[string]string{
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp", "image/svg+xml": ".svg",
	"audio/wav": ".wav", "audio/x-wav": ".wav", "audio/mpeg": ".mp3", "audio/ogg": ".ogg", "audio/webm": ".webm",
	"application/pdf": ".pdf", "application/json": ".json", "text/plain": ".txt", "application/zip": ".zip",
}

func extensionOf(mime string) string {
	base, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(mime)), ";")
	if ext, ok := extensions[strings.TrimSpace(base)]; ok {
		return ext
	}
	return ".bin"
}
