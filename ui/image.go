package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/png" // the diff images are PNG
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
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
// passthrough, so images are off there.
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

// imageMsg carries a fetched diff image for the screen with that URL.
type imageMsg struct {
	url string
	png []byte
	err error
}

// fetchImage downloads a screenshot, an http(s) link only (it is server
// text).
func fetchImage(ctx context.Context, fetch func(context.Context, string, int64) ([]byte, error), link string) tea.Cmd {
	return func() tea.Msg {
		if err := checkWebURL(link); err != nil {
			return imageMsg{url: link, err: err}
		}
		png, err := fetch(ctx, link, maxImageBytes)
		return imageMsg{url: link, png: png, err: err}
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

// openInBrowser hands an image link to the desktop's opener.
func openInBrowser(link string) tea.Cmd {
	return func() tea.Msg {
		return openedMsg{url: link, err: OpenURL(link)}
	}
}
