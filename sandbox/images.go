package sandbox

import (
	"bytes"
	"hash/fnv"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"net/http"
	"net/url"
)

// Viewport sizes in CSS pixels, the size of the rendered screenshots.
var viewportSizes = map[string]image.Point{
	"desktop": {1280, 800},
	"tablet":  {768, 1024},
	"mobile":  {375, 812},
}

var (
	pageBackground = color.RGBA{0xf5, 0xf6, 0xf8, 0xff}
	headerColour   = color.RGBA{0x1f, 0x29, 0x37, 0xff}
	logoColour     = color.RGBA{0xf9, 0xfa, 0xfb, 0xff}
	heroColour     = color.RGBA{0xdb, 0xea, 0xfe, 0xff}
	cardColour     = color.RGBA{0xff, 0xff, 0xff, 0xff}
	textColour     = color.RGBA{0xd1, 0xd5, 0xdb, 0xff}
	footerColour   = color.RGBA{0x37, 0x41, 0x51, 0xff}
	// The element that changes is a call-to-action banner: orange in the
	// baseline, green when a test recoloured it. No page colour is either,
	// so every pixel it covers or uncovers differs.
	bannerBefore = color.RGBA{0xf9, 0x73, 0x16, 0xff}
	bannerAfter  = color.RGBA{0x16, 0xa3, 0x4a, 0xff}
	diffMagenta  = color.RGBA{0xff, 0x00, 0xff, 0xff}
)

// mockup is the pair of screenshots behind a failed check: a simple page
// whose banner moved or changed colour between baseline and test, sized so
// the changed area matches the check's mismatch percentage.
type mockup struct {
	size   image.Point
	change bannerChange
}

type bannerChange struct {
	before, after image.Rectangle
	recoloured    bool
}

func (c bannerChange) kind() string {
	if c.recoloured {
		return "recoloured"
	}
	return "moved"
}

func newMockup(ch check) mockup {
	size, ok := viewportSizes[ch.Viewport]
	if !ok {
		size = viewportSizes["desktop"]
	}
	h := fnv.New64a()
	h.Write([]byte(ch.ScenarioLabel + "\x00" + ch.Viewport))
	seed := h.Sum64()
	changedArea := ch.MismatchPercent / 100 * float64(size.X*size.Y)
	top, bottom := 64, size.Y-56 // between header and footer

	// A move changes two strips of dx×height: where the banner was and
	// where it now is.
	height := max(16, size.Y/8)
	width := size.X / 4
	x := size.X / 10
	dx := int(math.Round(changedArea / float64(2*height)))
	// A third of the banners move (when the change fits), the rest recolour.
	if seed%3 == 0 && dx >= 1 && dx < width && x+width+dx <= size.X {
		y := top + int(seed>>1)%(bottom-top-height)
		before := image.Rect(x, y, x+width, y+height)
		return mockup{size: size, change: bannerChange{before: before, after: before.Add(image.Pt(dx, 0))}}
	}
	// A recolour changes the whole banner.
	width = size.X * 3 / 5
	height = min(bottom-top, max(1, int(math.Ceil(changedArea/float64(width)))))
	y := top + int(seed>>1)%(bottom-top-height+1)
	banner := image.Rect(size.X/5, y, size.X/5+width, y+height)
	return mockup{size: size, change: bannerChange{before: banner, after: banner, recoloured: true}}
}

// render draws the baseline (test=false) or the test screenshot, passing
// every colour through tone.
func (m mockup) render(test bool, tone func(color.RGBA) color.RGBA) *image.RGBA {
	w, h := m.size.X, m.size.Y
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fill := func(r image.Rectangle, c color.RGBA) {
		draw.Draw(img, r, image.NewUniform(tone(c)), image.Point{}, draw.Src)
	}
	fill(img.Bounds(), pageBackground)
	fill(image.Rect(0, 0, w, 56), headerColour)
	fill(image.Rect(16, 16, 16+w/8, 40), logoColour)
	heroBottom := 80 + h*28/100
	fill(image.Rect(24, 80, w-24, heroBottom), heroColour)
	columns := 3
	if w < 500 {
		columns = 1
	}
	cardWidth := (w - 24*(columns+1)) / columns
	for i := range columns {
		card := image.Rect(24+i*(cardWidth+24), heroBottom+24, 24+i*(cardWidth+24)+cardWidth, heroBottom+24+h*22/100)
		fill(card, cardColour)
		for line := range 3 {
			y := card.Min.Y + 16 + line*20
			fill(image.Rect(card.Min.X+16, y, card.Max.X-16-line*24, y+8), textColour)
		}
	}
	fill(image.Rect(0, h-48, w, h), footerColour)
	if test {
		colour := bannerBefore
		if m.change.recoloured {
			colour = bannerAfter
		}
		fill(m.change.after, colour)
	} else {
		fill(m.change.before, bannerBefore)
	}
	return img
}

func asIs(c color.RGBA) color.RGBA { return c }

// faded is the pale grey the diff shows unchanged pixels in.
func faded(c color.RGBA) color.RGBA {
	luma := (299*int(c.R) + 587*int(c.G) + 114*int(c.B)) / 1000
	v := byte(255 - (255-luma)/4)
	return color.RGBA{v, v, v, 0xff}
}

// diff is the diff screenshot, the baseline faded to grey with every
// changed pixel in magenta, and how many pixels changed. Only the banner
// differs between the two renders, so only its bounds are compared.
func (m mockup) diff() (*image.RGBA, int) {
	baseline, test := m.render(false, asIs), m.render(true, asIs)
	out := m.render(false, faded)
	changed := 0
	bounds := m.changedBounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			if baseline.RGBAAt(x, y) != test.RGBAAt(x, y) {
				changed++
				out.SetRGBA(x, y, diffMagenta)
			}
		}
	}
	return out, changed
}

// changedBounds is the one region that differs.
func (m mockup) changedBounds() image.Rectangle {
	return m.change.before.Union(m.change.after)
}

// imageURL is where serveImage answers with one picture of a check
// (baseline.png, test.png or diff.png), under base, the scheme and host
// the client used.
func imageURL(base, runID string, ch check, file string) string {
	return base + "/sandbox/images/" + url.PathEscape(runID) + "/" + url.PathEscape(ch.ScenarioLabel) + "/" + url.PathEscape(ch.Viewport) + "/" + file
}

// serveImage renders a check's baseline, test or diff PNG. The links in
// diff stats are opened by browsers and image viewers, which send no API
// key, so images need none.
func (s *Server) serveImage(w http.ResponseWriter, r *http.Request) {
	run, ok := s.findRun(r.PathValue("runId"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	ch, ok := run.find(r.PathValue("scenario"), r.PathValue("viewport"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	m := newMockup(ch)
	var img *image.RGBA
	switch r.PathValue("file") {
	case "baseline.png":
		img = m.render(false, asIs)
	case "test.png":
		img = m.render(true, asIs)
	case "diff.png":
		img, _ = m.diff()
	default:
		http.NotFound(w, r)
		return
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	// The pictures of a check never change, approved or not.
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Write(buf.Bytes()) //nolint:errcheck // the client went away; nothing to do.
}
