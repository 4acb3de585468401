// Package imagesafe decodes the images a server links (diff, baseline and
// test screenshots) within a pixel budget, and scales them down: a 78-byte
// PNG can declare 100000×100000 pixels, so the compressed size bounds
// nothing. Its header is read first and an image past the budget is
// refused before a pixel is decoded.
//
// imagesafe is a leaf: it imports the standard library and third-party
// modules only, never a vq package outside internal/.
package imagesafe

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/png" // the screenshots are PNG
	"io"

	"golang.org/x/image/draw"
)

// MaxPixels is the pixel budget of one image: a full-page screenshot of a
// tall page fits; decoded it takes at most 160 MB (8-bit RGBA).
const MaxPixels = 40_000_000

// TooLargeError refuses an image whose header declares more than
// MaxPixels pixels.
type TooLargeError struct{ Width, Height int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("image too large (%d×%d)", e.Width, e.Height)
}

// Check reads an image's header (its size and format name) and refuses
// one that is not an image, is empty, or is past MaxPixels.
func Check(r io.Reader) (image.Config, string, error) {
	cfg, format, err := image.DecodeConfig(r)
	switch {
	case err != nil:
		return cfg, format, fmt.Errorf("not an image: %w", err)
	case cfg.Width <= 0 || cfg.Height <= 0:
		return cfg, format, errors.New("empty image")
	case int64(cfg.Width)*int64(cfg.Height) > MaxPixels:
		return cfg, format, &TooLargeError{Width: cfg.Width, Height: cfg.Height}
	}
	return cfg, format, nil
}

// Decode decodes an image once Check lets it through.
func Decode(data []byte) (image.Image, error) {
	if _, _, err := Check(bytes.NewReader(data)); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	return img, err
}

// Fit is img scaled down, its aspect kept, so that neither side is longer
// than side pixels; an image that fits already is returned as it is. The
// scaling averages the pixels it folds together (a bilinear kernel widened
// to the reduction), so a one-pixel diff highlight fades rather than
// vanishes.
func Fit(img image.Image, side int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= side && h <= side {
		return img
	}
	if w >= h {
		w, h = side, max(h*side/w, 1)
	} else {
		w, h = max(w*side/h, 1), side
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.BiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}
