package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/png" // the diff images are PNG
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/internal/textsafe"
)

// imageProtocol is how the terminal can show a picture inline.
type imageProtocol int

const (
	noImages imageProtocol = iota
	kittyImages
	itermImages
)

// detectImageProtocol reads the environment only: asking the terminal
// would cost a round trip at start-up. Inside tmux the sequences would need
// passthrough, so tmux gets the half-block preview instead.
func detectImageProtocol(getenv func(string) string) imageProtocol {
	switch {
	case getenv("TMUX") != "":
		return noImages
	case getenv("TERM") == "xterm-kitty" || getenv("KITTY_WINDOW_ID") != "":
		return kittyImages
	case getenv("TERM_PROGRAM") == "iTerm.app" || getenv("TERM_PROGRAM") == "WezTerm":
		return itermImages
	}
	return noImages
}

// maxImageBytes bounds a downloaded diff image.
const maxImageBytes = 16 << 20

// imageMsg carries a fetched screenshot: the PNG, decoded when it is to
// be drawn in half-blocks (decoding is the slow part, done off the
// update loop).
type imageMsg struct {
	url string
	png []byte
	img image.Image
	err error
}

// fetchImage downloads a screenshot, an http(s) link only (it is server
// text), and decodes it when decode is set.
func fetchImage(ctx context.Context, fetch func(context.Context, string, int64) ([]byte, error), link string, decode bool) tea.Cmd {
	return func() tea.Msg {
		if err := checkWebURL(link); err != nil {
			return imageMsg{url: link, err: err}
		}
		data, err := fetch(ctx, link, maxImageBytes)
		msg := imageMsg{url: link, png: data, err: err}
		if err == nil && decode {
			msg.img, _, msg.err = image.Decode(bytes.NewReader(data))
		}
		return msg
	}
}

// askImage fetches the current screen's screenshots once: the diff for a
// terminal that shows images, else all three for the half-block preview.
func (s *answerPage) askImage() tea.Cmd {
	m := s.m
	if m.fetch == nil || s.images.diff == "" || s.imageAsked {
		return nil
	}
	s.imageAsked = true
	if m.images != noImages {
		return fetchImage(m.ctx, m.fetch, s.images.diff, false)
	}
	var cmds []tea.Cmd
	for _, link := range s.images.all() {
		cmds = append(cmds, fetchImage(m.ctx, m.fetch, link, true))
	}
	return tea.Batch(cmds...)
}

// showImage prints a fetched diff image above the screen, where it stays
// in the scrollback, or keeps a decoded one for the half-block preview.
func (s *answerPage) showImage(msg imageMsg) tea.Cmd {
	m := s.m
	if !slices.Contains(s.images.all(), msg.url) {
		return nil // it arrived after the person left its screen
	}
	if msg.err != nil {
		m.status = "diff image not shown: " + textsafe.SanitizeLine(msg.err.Error())
		return nil
	}
	if msg.img != nil {
		if s.pictures == nil {
			s.pictures = map[string]image.Image{}
		}
		s.pictures[msg.url] = msg.img
		s.drawPreview()
		return nil
	}
	seq, err := inlineImage(m.images, msg.png, min(m.width-1, 100), max(m.height/2, 4))
	if err != nil {
		m.status = "diff image not shown: " + textsafe.SanitizeLine(err.Error())
		return nil
	}
	return tea.Println(seq)
}

// drawPreview lays the screen's screenshots side by side in half-blocks,
// sized to the terminal: baseline, test and diff, each a third of the
// width, together at most a third of the height.
func (s *answerPage) drawPreview() {
	m := s.m
	s.preview = nil
	if len(s.pictures) == 0 {
		return
	}
	names := []string{"baseline", "test", "diff"}
	links := []string{s.images.baseline, s.images.test, s.images.diff}
	const gap = 2
	cols := max((m.width-1-2*gap)/3, 4)
	rows := max(m.height/3-1, 3)
	var panels [][]string
	var titles []string
	for i, link := range links {
		img, ok := s.pictures[link]
		if !ok {
			continue
		}
		panels = append(panels, halfBlocks(img, cols, rows))
		titles = append(titles, fit(names[i], cols, false))
	}
	spacer := strings.Repeat(" ", gap)
	s.preview = []string{m.styles.dim.Render(strings.TrimRight(strings.Join(titles, spacer), " "))}
	for y := 0; ; y++ {
		var parts []string
		more := false
		for _, p := range panels {
			if y < len(p) {
				parts = append(parts, p[y])
				more = true
			} else {
				parts = append(parts, strings.Repeat(" ", cols))
			}
		}
		if !more {
			break
		}
		s.preview = append(s.preview, strings.Join(parts, spacer))
	}
}

// inlineImage is the text that, printed above the screen, shows a PNG in
// about cols columns. The picture is drawn from its last line back up over
// blank lines reserved for it: the renderer erases every line it prints,
// and erasing after drawing would wipe the picture in iTerm2.
func inlineImage(p imageProtocol, png []byte, cols, maxRows int) (string, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(png))
	if err != nil {
		return "", fmt.Errorf("not an image: %w", err)
	}
	if cfg.Width == 0 || cfg.Height == 0 {
		return "", fmt.Errorf("empty image")
	}
	// A terminal cell is about twice as tall as it is wide.
	rows := min(max(cols*cfg.Height/cfg.Width/2, 1), maxRows)
	data := base64.StdEncoding.EncodeToString(png)
	var seq strings.Builder
	switch p {
	case kittyImages:
		// Chunks of at most 4096 bytes of payload, as the protocol asks.
		for first := true; first || data != ""; first = false {
			chunk := data[:min(len(data), 4096)]
			data = data[len(chunk):]
			more := 0
			if data != "" {
				more = 1
			}
			if first {
				fmt.Fprintf(&seq, "\x1b_Gf=100,a=T,q=2,C=1,c=%d,r=%d,m=%d;%s\x1b\\", cols, rows, more, chunk)
			} else {
				fmt.Fprintf(&seq, "\x1b_Gm=%d;%s\x1b\\", more, chunk)
			}
		}
	case itermImages:
		fmt.Fprintf(&seq, "\x1b]1337;File=inline=1;size=%d;width=%d;height=%d;preserveAspectRatio=1:%s\a", len(png), cols, rows, data)
	default:
		return "", fmt.Errorf("terminal shows no images")
	}
	return strings.Repeat("\n", rows) + ansi.SaveCursor + ansi.CursorUp(rows) + "\r" + seq.String() + ansi.RestoreCursor, nil
}

// openedMsg reports the browser start.
type openedMsg struct {
	url string
	err error
}

// openInBrowser hands an image link to the opener.
func openInBrowser(open func(string) error, link string) tea.Cmd {
	return func() tea.Msg {
		return openedMsg{url: link, err: open(link)}
	}
}
