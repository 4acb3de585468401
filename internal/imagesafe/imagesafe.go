// Package imagesafe decodes the images a server links within a fixed budget,
// and scales them down. The compressed size bounds nothing (a 78-byte PNG can
// declare 100000×100000 pixels), so Check refuses a header past the budget
// before a pixel is decoded; decodes run one at a time, so the budget bounds
// the process; DecodeFit drops the full image before it returns.
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

// MaxPixels is the pixel budget of one image: a tall full-page screenshot fits (1280×30000).
const MaxPixels = 40_000_000

// MaxBytes bounds one decoded image: 4 bytes a pixel at MaxPixels, so fewer
// pixels of a 16-bit or interlaced PNG fit.
const MaxBytes = 4 * MaxPixels

// TooLargeError refuses an image whose header declares more than the budget.
type TooLargeError struct{ Width, Height int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("image too large (%d×%d)", e.Width, e.Height)
}

// Check reads an image's header and refuses a non-image, an empty one, or one
// past MaxPixels or MaxBytes.
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

// decoding lets one decode run at a time, so concurrent fetches hold one budget.
var decoding sync.Mutex

// Decode decodes an image once Check lets it through.
func Decode(data []byte) (image.Image, error) {
	decoding.Lock()
	defer decoding.Unlock()
	return decode(data)
}

// DecodeFit decodes an image and Fits it to side; the full image is dropped before it returns.
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

// Fit scales img down, aspect kept, to at most side pixels a side (one that
// fits is returned as is). A box filter lets a one-pixel diff fade rather than
// vanish; reading a row at a time keeps memory to the result and one row
// (x/image/draw's separable kernel took 317 MB for 6324×6324 to 1568).
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

// Shrink box-filters img into w×h (no larger than img), premultiplied, a row at a time.
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

// header keeps the bytes Check reads: a PNG's IHDR says whether it is interlaced.
type header struct{ b []byte }

const headerSize = 33 // the PNG signature and the IHDR chunk

func (h *header) Write(p []byte) (int, error) {
	if n := headerSize - len(h.b); n > 0 {
		h.b = append(h.b, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// bytesPerPixel is what the decoder allocates a pixel, doubled for an
// interlaced PNG, whose passes are decoded apart before they merge.
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
