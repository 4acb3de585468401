package imagesafe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// declaring is a valid 1×1 PNG whose header is rewritten to declare w×h
// pixels: 70-odd bytes that would decode to gigabytes.
func declaring(t *testing.T, w, h uint32) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// Signature (8), IHDR length (4), "IHDR" (4), then width and height.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

func TestAnImagePastTheBudgetIsRefusedFromItsHeader(t *testing.T) {
	data := declaring(t, 100000, 100000)
	_, err := Decode(data)
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || err.Error() != "image too large (100000×100000)" {
		t.Fatalf("%d-byte PNG of 100000×100000: %v", len(data), err)
	}
	if _, err := Decode([]byte("GIF89a")); err == nil {
		t.Error("not a PNG: decoded")
	}
	if _, err := Decode(declaring(t, 0, 10)); err == nil {
		t.Error("0×10: decoded")
	}
}

func TestFitKeepsTheAspectAndTheHighlight(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 6272, 100))
	for i := range src.Pix {
		src.Pix[i] = 0xff
	}
	// A one-pixel red line, as a diff marks a change.
	for y := range 100 {
		src.Set(3000, y, color.NRGBA{R: 0xff, A: 0xff})
	}
	fit := Fit(src, 1568)
	if b := fit.Bounds(); b.Dx() != 1568 || b.Dy() != 25 {
		t.Fatalf("fit to %v", b)
	}
	_, g, _, _ := fit.At(750, 12).RGBA()
	if g>>8 > 0xf0 {
		t.Errorf("the red line vanished: green %#x where it was", g>>8)
	}
	tall := Fit(image.NewGray(image.Rect(0, 0, 500, 4000)), 1568)
	if b := tall.Bounds(); b.Dx() != 196 || b.Dy() != 1568 {
		t.Errorf("tall fit to %v", b)
	}
	small := image.NewGray(image.Rect(0, 0, 1568, 10))
	if Fit(small, 1568) != image.Image(small) {
		t.Error("an image that fits was scaled")
	}
}

// BenchmarkFit measures the scaling of a diff to an agent's 1568 px: a
// desktop full-page screenshot, and the pixel budget's worst (40 MP).
//
//	go test ./internal/imagesafe -run '^$' -bench Fit
func BenchmarkFit(b *testing.B) {
	for _, size := range []image.Point{{2560, 8000}, {5000, 8000}} {
		src := image.NewRGBA(image.Rect(0, 0, size.X, size.Y))
		b.Run(fmt.Sprintf("%dx%d", size.X, size.Y), func(b *testing.B) {
			for b.Loop() {
				Fit(src, 1568)
			}
		})
	}
}
