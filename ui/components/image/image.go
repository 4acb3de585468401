// Package image shows an answer's screenshots one at a time, inline where the terminal can,
// else in half-blocks. It imports the internal leaves only.
package image

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/visualq/vq/internal/imagesafe"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/textsafe"
)

// Protocol is how the terminal shows a picture inline; None draws half-blocks.
type Protocol int

const (
	None Protocol = iota
	Kitty
	ITerm
)

// Detect reads the environment only (asking costs a round trip); tmux gets half-blocks.
func Detect(getenv func(string) string) Protocol {
	switch {
	case getenv("TMUX") != "":
		return None
	case getenv("TERM") == "xterm-kitty" || getenv("KITTY_WINDOW_ID") != "":
		return Kitty
	case getenv("TERM_PROGRAM") == "iTerm.app" || getenv("TERM_PROGRAM") == "WezTerm":
		return ITerm
	}
	return None
}

// maxImageBytes bounds a download; thumbnailSide the preview's kept side (a few MB at most).
const maxImageBytes, thumbnailSide = 16 << 20, 640

// Msg carries a fetched PNG, or its thumbnail decoded off the update loop.
type Msg struct {
	URL string
	PNG []byte
	Img image.Image
	Err error
}

// Fetch downloads at most max bytes of link.
type Fetch func(ctx context.Context, link string, max int64) ([]byte, error)

// fetchImage downloads a screenshot and decodes it within imagesafe's pixel budget.
func fetchImage(ctx context.Context, fetch Fetch, link string, decode bool) tea.Cmd {
	return func() tea.Msg {
		data, err := fetch(ctx, link, maxImageBytes)
		msg := Msg{URL: link, PNG: data, Err: err}
		if err == nil && decode {
			msg.PNG = nil
			msg.Img, msg.Err = imagesafe.DecodeFit(data, thumbnailSide)
		}
		return msg
	}
}

// Shot is one of a screen's screenshots.
type Shot struct{ Name, Link string }

// Styles are the looks of the link's line and of the notes.
type Styles struct{ Label, Dim lipgloss.Style }

// Keys open and copy the screenshot shown, show the next, and show it over the whole screen.
type Keys struct{ Open, Copy, Image, Full key.Binding }

// NewKeys are o, y, i and z.
func NewKeys() Keys {
	return Keys{
		Open:  key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open diff")),
		Copy:  key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy link")),
		Image: key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "next image")),
		Full:  key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "full screen")),
	}
}

func (k Keys) ShortHelp() []key.Binding  { return []key.Binding{k.Open, k.Copy, k.Image, k.Full} }
func (k Keys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// Model is a screen's screenshots in i's order, each fetched or why not.
type Model struct {
	shots    []Shot
	shown    int
	asked    map[string]bool
	pictures map[string]picture
	preview  []string
}

type picture struct {
	img image.Image
	err error
}

// New finds the top-level baselineImageUrl, testImageUrl and diffImageUrl.
func New(fields []layout.Field) Model {
	var m Model
	for _, s := range []Shot{{"diff", "diffImageUrl"}, {"baseline", "baselineImageUrl"}, {"test", "testImageUrl"}} {
		for _, f := range fields {
			// Top-level string members only: a nested key is dotted.
			if f.Key == f.Name && f.Name == s.Link && f.Node.Kind == '"' {
				if link := textsafe.SanitizeLine(f.Node.Text); link != "" {
					m.shots = append(m.shots, Shot{s.Name, link})
				}
				break
			}
		}
	}
	return m
}

func (m *Model) HasDiff() bool {
	return slices.ContainsFunc(m.shots, func(s Shot) bool { return s.Name == "diff" })
}

// Shown is the screenshot shown; ok is false when there is none.
func (m *Model) Shown() (Shot, bool) {
	if len(m.shots) == 0 {
		return Shot{}, false
	}
	return m.shots[m.shown%len(m.shots)], true
}

// Next shows the next screenshot (i).
func (m *Model) Next(width, height int, st Styles) {
	m.shown = (m.shown + 1) % max(len(m.shots), 1)
	m.Draw(width, height, st)
}

// Ask fetches each screenshot once: the shown one inline, else all for the preview.
func (m *Model) Ask(ctx context.Context, fetch Fetch, p Protocol) tea.Cmd {
	cur, ok := m.Shown()
	if fetch == nil || !ok {
		return nil
	}
	shots := []Shot{cur}
	if p == None {
		shots = m.shots
	}
	var cmds []tea.Cmd
	for _, s := range shots {
		if m.asked[s.Link] {
			continue
		}
		if m.asked == nil {
			m.asked = map[string]bool{}
		}
		m.asked[s.Link] = true
		cmds = append(cmds, fetchImage(ctx, fetch, s.Link, p == None))
	}
	return tea.Batch(cmds...)
}

// Update prints a fetched screenshot above the screen, or keeps it for the preview.
func (m *Model) Update(msg Msg, p Protocol, width, height int, st Styles) tea.Cmd {
	if !slices.ContainsFunc(m.shots, func(s Shot) bool { return s.Link == msg.URL }) {
		return nil // it arrived after the person left its screen
	}
	if msg.Err == nil && msg.PNG != nil {
		seq, err := inline(p, msg.PNG, min(width-1, 100), max(height/2, 4))
		if err == nil {
			return tea.Println(seq)
		}
		msg.Err = err
	}
	if m.pictures == nil {
		m.pictures = map[string]picture{}
	}
	m.pictures[msg.URL] = picture{img: msg.Img, err: msg.Err}
	m.Draw(width, height, st)
	return nil
}

func (m *Model) Name(link string) string {
	for _, s := range m.shots {
		if s.Link == link {
			return s.Name
		}
	}
	return "diff"
}

// Draw draws the shown screenshot in a third of the height, or why it is not shown.
func (m *Model) Draw(width, height int, st Styles) {
	m.preview = nil
	cur, ok := m.Shown()
	if !ok {
		return
	}
	pic, ok := m.pictures[cur.Link]
	switch {
	case !ok:
	case pic.err != nil:
		m.preview = []string{st.Dim.Render(cur.Name + ": " + textsafe.SanitizeLine(textsafe.Clip(pic.err.Error(), textsafe.MaxLineBytes)))}
	default:
		m.preview = halfBlocks(pic.img, max(width-1, 4), max(height/3-1, 3))
	}
}

// View is the preview and the shown link, wrapped; the last frame keeps only the preview.
func (m *Model) View(done bool, width int, st Styles) []string {
	cur, ok := m.Shown()
	if !ok {
		return nil
	}
	if done {
		return append([]string{}, m.preview...)
	}
	// The name heads the picture, so i never leaves it unsaid which one is shown.
	keys := "o opens it, y copies it, z full screen"
	if len(m.shots) > 1 {
		keys += ", i shows the " + m.next().Name
	}
	lines := append([]string{st.Label.Render(cur.Name+" image") + st.Dim.Render("  ("+keys+")")}, m.preview...)
	return append(lines, strings.Split(ansi.Hardwrap(textsafe.Clip(cur.Link, textsafe.MaxLineBytes), max(width-1, 20), false), "\n")...)
}

// Full is the shown screenshot over a width×height frame under its name (z); an inline picture is above the screen.
func (m *Model) Full(p Protocol, width, height int, st Styles) []string {
	cur, ok := m.Shown()
	if !ok {
		return nil
	}
	keys := "z or esc goes back"
	if len(m.shots) > 1 {
		keys += ", i shows the " + m.next().Name
	}
	lines := []string{st.Label.Render(cur.Name+" image") + st.Dim.Render("  ("+keys+")")}
	pic, ok := m.pictures[cur.Link]
	switch {
	case !ok && p != None:
		return append(lines, st.Dim.Render("shown above the screen; o opens it"))
	case !ok:
		return append(lines, st.Dim.Render("loading…"))
	case pic.err != nil:
		return append(lines, st.Dim.Render(cur.Name+": "+textsafe.SanitizeLine(textsafe.Clip(pic.err.Error(), textsafe.MaxLineBytes))))
	}
	return append(lines, halfBlocks(pic.img, max(width-1, 4), max(height-2, 3))...)
}

func (m *Model) next() Shot { return m.shots[(m.shown+1)%len(m.shots)] }

// Keys are k with what does nothing disabled, named after the shots.
func (m *Model) Keys(k Keys) Keys {
	cur, ok := m.Shown()
	k.Open.SetEnabled(ok)
	k.Copy.SetEnabled(ok)
	k.Open.SetHelp("o", "open "+cur.Name)
	k.Image.SetEnabled(len(m.shots) > 1)
	k.Full.SetEnabled(ok)
	if len(m.shots) > 1 {
		k.Image.SetHelp("i", m.next().Name+" image")
	}
	return k
}

// inline shows a PNG over blank lines reserved for it (erasing after would wipe it in iTerm2).
func inline(p Protocol, png []byte, cols, maxRows int) (string, error) {
	// The terminal decodes it: it is held to vq's own budget.
	cfg, _, err := imagesafe.Check(bytes.NewReader(png))
	if err != nil {
		return "", err
	}
	// A terminal cell is about twice as tall as it is wide.
	rows := min(max(cols*cfg.Height/cfg.Width/2, 1), maxRows)
	data := base64.StdEncoding.EncodeToString(png)
	var seq strings.Builder
	switch p {
	case Kitty:
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
	case ITerm:
		fmt.Fprintf(&seq, "\x1b]1337;File=inline=1;size=%d;width=%d;height=%d;preserveAspectRatio=1:%s\a", len(png), cols, rows, data)
	default:
		return "", fmt.Errorf("terminal shows no images")
	}
	return strings.Repeat("\n", rows) + ansi.SaveCursor + ansi.CursorUp(rows) + "\r" + seq.String() + ansi.RestoreCursor, nil
}

// OpenedMsg reports the browser start.
type OpenedMsg struct {
	URL string
	Err error
}

func Open(open func(string) error, link string) tea.Cmd {
	return func() tea.Msg { return OpenedMsg{URL: link, Err: open(link)} }
}
