package cmdutil

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/imagesafe"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/privatefile"
	"github.com/visualq/vq/internal/textsafe"
)

// SaveOptions are --save-dir and the bounds of the diff images saved there.
type SaveOptions struct {
	Dir       string
	MaxImages int
	MaxMB     int
}

func (o *SaveOptions) resolve(c *cobra.Command) error {
	for _, name := range []string{"save-max-images", "save-max-mb"} {
		if !c.Flags().Changed(name) {
			continue
		}
		if o.Dir == "" {
			return &exitcode.UsageError{Reason: "--" + name + " bounds what --save-dir saves", Hint: "add --save-dir DIR, or drop --" + name}
		}
		if n, _ := c.Flags().GetInt(name); n <= 0 {
			return exitcode.Usagef("--%s must be positive, got %d", name, n)
		}
	}
	return nil
}

// saveDiffImages saves the diff images of resp's failed checks into --save-dir:
// fetched from the server's origin only (FetchPublic), each an image by its
// header, named by vq (the check's place and a file-safe label, never the
// server's path), within --save-max-images and --save-max-mb. An image not
// fetched is a warning; a file not written stops the saving with an error.
func (p *Pipeline) saveDiffImages(ctx context.Context, resp *api.ToolResponse) (format.Saved, error) {
	o, print := p.f.Global.Save, p.f.Terminal().Print
	if o.Dir == "" {
		return nil, nil
	}
	checks, ok := layout.ChecksOf(resp.Data)
	if !ok || checks.Failed == 0 {
		noteNothingToSave(print, resp)
		return nil, nil
	}
	client, s, err := p.Connect(ctx)
	if err != nil {
		return nil, err
	}
	saved, budget, left := format.Saved{}, int64(o.MaxMB)<<20, 0
	for i, ch := range checks.Listed {
		switch {
		case !ch.Failed || ch.DiffURL == "":
			continue
		case len(saved) == o.MaxImages || budget <= 0:
			left++
			continue
		}
		label := fmt.Sprintf("%s [%s]", textsafe.SanitizeLine(ch.Scenario), textsafe.SanitizeLine(ch.Viewport))
		data, err := client.FetchPublic(ctx, s.Home(), ch.DiffURL, budget)
		if err == nil {
			_, _, err = imagesafe.Check(bytes.NewReader(data))
		}
		if err != nil {
			print.Warning("diff image of " + label + " not saved: " + textsafe.SanitizeLine(err.Error()))
			continue
		}
		name := fmt.Sprintf("%02d-%s-%s.png", i+1, fileSafe(truncate(ch.Scenario, 60)), fileSafe(truncate(ch.Viewport, 30)))
		path := filepath.Join(o.Dir, name)
		if err := privatefile.WriteReport(path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return saved, fmt.Errorf("--save-dir: %w", err)
		}
		budget -= int64(len(data))
		saved[i] = path
		print.Note("saved the diff image of " + label + " to " + textsafe.SanitizeLine(path))
	}
	if left > 0 {
		print.Warning(fmt.Sprintf("%d more diff images not saved: past --save-max-images %d or --save-max-mb %d", left, o.MaxImages, o.MaxMB))
	}
	return saved, nil
}

// noteNothingToSave says --save-dir found no failed check in resp, so the flag
// is never silently ignored; content and a refusal's error say enough.
func noteNothingToSave(print format.Printer, resp *api.ToolResponse) {
	if resp.Content == nil && resp.Error == nil {
		print.Note("--save-dir: nothing to save, the answer has no failed check")
	}
}

// truncate keeps the first n runes of s.
func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
