// Package imagesafe decodes the images a server links (diff, baseline and
// test screenshots) within a fixed budget, and scales them down. The
// compressed size bounds nothing: a 78-byte PNG can declare 100000×100000
// pixels, and a 97 KB one 10000×10000. So an image's header is read first
// (Check) and one past the budget is refused before a pixel is decoded;
// decodes run one at a time, so that the budget bounds the process, not
// each caller; and DecodeFit drops the full image before it returns, so
// that what a caller keeps is the small one.
//
// The steps are Check (the header against the budget), Decode (Check,
// then the pixels) and Fit (an image scaled down); DecodeFit is the last
// two as one, which is what a caller that keeps a picture wants; Shrink
// is the scaling itself, to any size.
//
// imagesafe is a leaf: it imports the standard library only, never a vq
// package outside internal/.
package imagesafe

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	_ "image/png" // the screenshots are PNG
	"io"
	"sync"
)

// MaxPixels is the pixel budget of one image: a full-page screenshot of a
// tall page fits (1280×30000).
const MaxPixels = 40_000_000

// MaxBytes bounds the memory one decoded image takes: 4 bytes a pixel
// (8-bit RGBA) at MaxPixels. A 16-bit or an interlaced PNG (which the
// decoder builds in passes beside the image) takes more a pixel, so fewer
// of its pixels fit.
const MaxBytes = 4 * MaxPixels

// TooLargeError refuses an image whose header declares more than the
// budget allows.
type TooLargeError struct{ Width, Height int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("image too large (%d×%d)", e.Width, e.Height)
}

// Check reads an image's header (its size and format name) and refuses
// one that is not an image, is empty, or is past the budget (MaxPixels,
// MaxBytes).
func Check(r io.Reader) (image.Config, string, error) {
	var head header
	cfg, format, err := image.DecodeConfig(io.TeeReader(r, &head))
	switch {
	case err != nil:
		return cfg, format, fmt.Errorf("not an image: %w", err)
	case cfg.Width <= 0 || cfg.Height <= 0:
		return cfg, format, errors.New("empty image")
	}
	pixels := int64(cfg.Width) * int64(cfg.Height)
	if pixels > MaxPixels || pixels*head.bytesPerPixel(cfg.ColorModel) > MaxBytes {
		return cfg, format, &TooLargeError{Width: cfg.Width, Height: cfg.Height}
	}
	return cfg, format, nil
}

// decoding lets one decode run at a time: three screenshots of a screen
// fetched at once would otherwise hold three budgets.
var decoding sync.Mutex

// Decode decodes an image once Check lets it through. The image is the
// caller's to keep or drop: one that keeps only a smaller picture calls
// DecodeFit.
func Decode(data []byte) (image.Image, error) {
	decoding.Lock()
	defer decoding.Unlock()
	return decode(data)
}

// DecodeFit decodes an image and scales it down (Fit) to at most side
// pixels a side; the full image is dropped before it returns.
func DecodeFit(data []byte, side int) (image.Image, error) {
	decoding.Lock()
	defer decoding.Unlock()
	img, err := decode(data)
	if err != nil {
		return nil, err
	}
	return Fit(img, side), nil
}

func decode(data []byte) (image.Image, error) {
	if _, _, err := Check(bytes.NewReader(data)); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	return img, err
}

// Fit is img scaled down, its aspect kept, so that neither side is longer
// than side pixels; an image that fits already is returned as it is. Each
// pixel is the average of the source pixels it covers (a box filter), so a
// one-pixel diff highlight fades rather than vanishes. It reads the source
// a row at a time: its memory is that of the result and one source row (a
// separable kernel's buffer of the result's width by the source's height,
// x/image/draw's, took 317 MB for the budget's 6324×6324 fit to 1568).
func Fit(img image.Image, side int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if (w <= side && h <= side) || side < 1 {
		return img
	}
	if w >= h {
		w, h = side, max(h*side/w, 1)
	} else {
		w, h = max(w*side/h, 1), side
	}
	return Shrink(img, w, h)
}

// Shrink averages img into w×h pixels (a box filter), w and h no larger
// than img's; colours are averaged premultiplied, as *image.RGBA stores
// them. It reads img a row at a time.
func Shrink(img image.Image, w, h int) *image.RGBA {
	b := img.Bounds()
	w, h = max(min(w, b.Dx()), 1), max(min(h, b.Dy()), 1)
	sw, sh := b.Dx(), b.Dy()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	row := image.NewRGBA(image.Rect(0, 0, sw, 1))
	sums := make([][5]uint32, w) // r, g, b, a, count of one output row
	column := make([]int, sw)    // the output column of each source column
	for x := range sw {
		column[x] = x * w / sw
	}
	for ty := range h {
		clear(sums)
		for y := ty * sh / h; y < (ty+1)*sh/h; y++ {
			draw.Draw(row, row.Rect, img, image.Pt(b.Min.X, b.Min.Y+y), draw.Src)
			for x, c := range column {
				s, p := &sums[c], row.Pix[4*x:4*x+4]
				s[0] += uint32(p[0])
				s[1] += uint32(p[1])
				s[2] += uint32(p[2])
				s[3] += uint32(p[3])
				s[4]++
			}
		}
		out := dst.Pix[dst.PixOffset(0, ty):]
		for tx, s := range sums {
			if n := s[4]; n > 0 {
				px := out[4*tx : 4*tx+4]
				px[0], px[1], px[2], px[3] = uint8(s[0]/n), uint8(s[1]/n), uint8(s[2]/n), uint8(s[3]/n)
			}
		}
	}
	return dst
}

// header keeps the first bytes of an image as Check reads them: a PNG's
// IHDR says whether it is interlaced.
type header struct{ b []byte }

const headerSize = 33 // the PNG signature and the IHDR chunk

func (h *header) Write(p []byte) (int, error) {
	if n := headerSize - len(h.b); n > 0 {
		h.b = append(h.b, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// bytesPerPixel is what the decoder allocates a pixel for an image of
// model: twice as much for an interlaced PNG, whose passes are decoded
// into images of their own before they are merged.
func (h *header) bytesPerPixel(model color.Model) int64 {
	n := int64(8) // a model not listed: as much as the widest
	switch model {
	case color.GrayModel, color.AlphaModel:
		n = 1
	case color.Gray16Model, color.Alpha16Model:
		n = 2
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel, color.YCbCrModel:
		n = 4
	}
	if _, ok := model.(color.Palette); ok {
		n = 1
	}
	if len(h.b) == headerSize && bytes.HasPrefix(h.b, pngSignature) && h.b[28] == 1 {
		n *= 2
	}
	return n
}
