package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/internal/imagesafe"
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

// thumbnailSide is the longest side of a screenshot as the half-block
// preview keeps it: more pixels than a preview of a wide terminal draws,
// and a few MB at most, whatever the image's size.
const thumbnailSide = 640

// imageMsg carries a fetched screenshot: the PNG, or the picture decoded
// and scaled down (thumbnailSide) when it is to be drawn in half-blocks
// (decoding is the slow part, done off the update loop).
type imageMsg struct {
	url string
	png []byte
	img image.Image
	err error
}

// fetchImage downloads a screenshot through fetch, which refuses a link
// off the VisualQ server (Options.Fetch), and decodes it when decode is
// set, within imagesafe's budget: an image whose header declares too many
// pixels is refused unread.
func fetchImage(ctx context.Context, fetch func(context.Context, string, int64) ([]byte, error), link string, decode bool) tea.Cmd {
	return func() tea.Msg {
		data, err := fetch(ctx, link, maxImageBytes)
		msg := imageMsg{url: link, png: data, err: err}
		if err == nil && decode {
			msg.png = nil
			msg.img, msg.err = imagesafe.DecodeFit(data, thumbnailSide)
		}
		return msg
	}
}

// shot is one of a screen's screenshots.
type shot struct{ name, link string }

// shots are the screen's screenshots in the order i cycles through them:
// the diff first.
func (u imageURLs) shots() []shot {
	var out []shot
	for _, s := range []shot{{"diff", u.diff}, {"baseline", u.baseline}, {"test", u.test}} {
		if s.link != "" {
			out = append(out, s)
		}
	}
	return out
}

// screenshots are what a screen shows of its images: which one (i cycles),
// the links asked for, each fetched picture or why it is not shown, and
// the shown one drawn in half-blocks at the terminal's size.
type screenshots struct {
	shown    int
	asked    map[string]bool
	pictures map[string]picture
	preview  []string
}

// picture is a fetched screenshot, scaled down, or why it is not shown.
type picture struct {
	img image.Image
	err error
}

// shownShot is the screenshot the screen shows; ok is false when the
// answer has none.
func (s *answerPage) shownShot() (shot, bool) {
	shots := s.images.shots()
	if len(shots) == 0 {
		return shot{}, false
	}
	return shots[s.shots.shown%len(shots)], true
}

// nextShot shows the next screenshot (i), fetching it when the terminal
// shows images itself.
func (s *answerPage) nextShot() tea.Cmd {
	s.shots.shown = (s.shots.shown + 1) % max(len(s.images.shots()), 1)
	s.drawPreview()
	return s.askImage()
}

// askImage fetches the screen's screenshots once each: the one shown for
// a terminal that shows images, else all of them for the half-block
// preview.
func (s *answerPage) askImage() tea.Cmd {
	m := s.m
	cur, ok := s.shownShot()
	if m.fetch == nil || !ok {
		return nil
	}
	links := []string{cur.link}
	if m.images == noImages {
		links = s.images.all()
	}
	var cmds []tea.Cmd
	for _, link := range links {
		if s.shots.asked[link] {
			continue
		}
		if s.shots.asked == nil {
			s.shots.asked = map[string]bool{}
		}
		s.shots.asked[link] = true
		cmds = append(cmds, fetchImage(m.ctx, m.fetch, link, m.images == noImages))
	}
	return tea.Batch(cmds...)
}

// showImage prints a fetched screenshot above the screen, where it stays
// in the scrollback, or keeps a decoded one for the half-block preview,
// or why it is not shown, which the preview says in its place.
func (s *answerPage) showImage(msg imageMsg) tea.Cmd {
	m := s.m
	if !slices.Contains(s.images.all(), msg.url) {
		return nil // it arrived after the person left its screen
	}
	if msg.err == nil && msg.png != nil {
		seq, err := inlineImage(m.images, msg.png, min(m.width-1, 100), max(m.height/2, 4))
		if err == nil {
			return tea.Println(seq)
		}
		msg.err = err
	}
	if s.shots.pictures == nil {
		s.shots.pictures = map[string]picture{}
	}
	s.shots.pictures[msg.url] = picture{img: msg.img, err: msg.err}
	s.drawPreview()
	return nil
}

// shotName names the screenshot of link.
func (s *answerPage) shotName(link string) string {
	for _, sh := range s.images.shots() {
		if sh.link == link {
			return sh.name
		}
	}
	return "diff"
}

// drawPreview draws the shown screenshot in half-blocks, sized to the
// terminal: its width, a third of its height; or says why it is not
// shown.
func (s *answerPage) drawPreview() {
	m := s.m
	s.shots.preview = nil
	cur, ok := s.shownShot()
	if !ok {
		return
	}
	pic, ok := s.shots.pictures[cur.link]
	switch {
	case !ok:
	case pic.err != nil:
		s.shots.preview = []string{m.styles.dim.Render(cur.name + ": " + textsafe.SanitizeLine(clip(pic.err.Error(), maxLineBytes)))}
	default:
		s.shots.preview = halfBlocks(pic.img, max(m.width-1, 4), max(m.height/3-1, 3))
	}
}

// inlineImage is the text that, printed above the screen, shows a PNG in
// about cols columns. The picture is drawn from its last line back up over
// blank lines reserved for it: the renderer erases every line it prints,
// and erasing after drawing would wipe the picture in iTerm2.
func inlineImage(p imageProtocol, png []byte, cols, maxRows int) (string, error) {
	// The terminal decodes the PNG: it is held to the budget vq's own
	// decoding is.
	cfg, _, err := imagesafe.Check(bytes.NewReader(png))
	if err != nil {
		return "", err
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
