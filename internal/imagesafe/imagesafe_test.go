package imagesafe

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"runtime"
	"testing"

	"github.com/visualq/vq/internal/testkit"
)

// allocated is how many bytes the process allocates while f runs. The
// count is the whole process's (runtime.MemStats), so it is f's only when
// nothing else runs: a test that calls it is not parallel, and the fuzz
// target's inputs run one at a time after the tests.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// The bombs of issue 29 and their kin are refused from their header,
// before a pixel is decoded: each costs less than a megabyte. Not parallel:
// the cost is read from the process's allocation count (allocated), which
// a test decoding beside it (TestAnImageWithinTheBudgetDecodes: 36 MB)
// would add to.
func TestAnImagePastTheBudgetIsRefusedFromItsHeader(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"78 bytes declaring 100000×100000", testkit.DeclaredPNG(t, 100000, 100000, testkit.PNGRGBA, 8, false), "image too large (100000×100000)"},
		{"97 KB of 10000×10000 grayscale", testkit.BlankPNG(t, 10000, 10000), "image too large (10000×10000)"},
		{"one pixel past the budget", testkit.DeclaredPNG(t, MaxPixels+1, 1, testkit.PNGGray, 8, false), "image too large (40000001×1)"},
		{"16-bit RGBA: 8 bytes a pixel", testkit.DeclaredPNG(t, 6000, 6000, testkit.PNGRGBA, 16, false), "image too large (6000×6000)"},
		{"interlaced RGBA: twice its pixels", testkit.DeclaredPNG(t, 5000, 5000, testkit.PNGRGBA, 8, true), "image too large (5000×5000)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			bytesUsed := allocated(func() { _, err = DecodeFit(c.data, 100) })
			var tooLarge *TooLargeError
			if !errors.As(err, &tooLarge) || err.Error() != c.want {
				t.Errorf("%d-byte PNG: %v, want %s", len(c.data), err, c.want)
			}
			if bytesUsed > 1<<20 {
				t.Errorf("refusing it allocated %d bytes", bytesUsed)
			}
		})
	}
	if _, err := Decode([]byte("GIF89a")); err == nil {
		t.Error("not a PNG: decoded")
	}
	if _, _, err := Check(bytes.NewReader(testkit.DeclaredPNG(t, 0, 10, testkit.PNGGray, 8, false))); err == nil {
		t.Error("0×10: let through")
	}
}

// Within the budget an image decodes: the largest 8-bit grayscale and
// 8-bit RGBA headers pass Check, and a true 6000×6000 grayscale PNG
// decodes to its fitted picture.
func TestAnImageWithinTheBudgetDecodes(t *testing.T) {
	t.Parallel()
	for _, data := range [][]byte{
		testkit.DeclaredPNG(t, 6324, 6324, testkit.PNGGray, 8, false),
		testkit.DeclaredPNG(t, 40000, 1000, testkit.PNGRGBA, 8, false),
		testkit.DeclaredPNG(t, 4000, 4000, testkit.PNGRGBA, 8, true),
	} {
		if _, _, err := Check(bytes.NewReader(data)); err != nil {
			t.Errorf("refused: %v", err)
		}
	}
	img, err := DecodeFit(testkit.BlankPNG(t, 6000, 6000), 600)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 600 || b.Dy() != 600 {
		t.Errorf("fitted to %v", b)
	}
}

func TestFitKeepsTheAspectAndTheHighlight(t *testing.T) {
	t.Parallel()
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
	if _, g, _, _ := fit.At(100, 12).RGBA(); g>>8 != 0xff {
		t.Errorf("white became green %#x", g>>8)
	}
	tall := Fit(image.NewGray(image.Rect(0, 0, 500, 4000)), 1568)
	if b := tall.Bounds(); b.Dx() != 196 || b.Dy() != 1568 {
		t.Errorf("tall fit to %v", b)
	}
	small := image.NewGray(image.Rect(0, 0, 1568, 10))
	if Fit(small, 1568) != image.Image(small) {
		t.Error("an image that fits was scaled")
	}
	// A sub-image keeps its own pixels: its bounds do not start at 0.
	board := image.NewGray(image.Rect(0, 0, 40, 40))
	for x := 20; x < 40; x++ {
		for y := range 40 {
			board.SetGray(x, y, color.Gray{Y: 0xff})
		}
	}
	right := Fit(board.SubImage(image.Rect(20, 0, 40, 40)), 10)
	if r, _, _, _ := right.At(2, 5).RGBA(); r>>8 != 0xff {
		t.Errorf("a sub-image was read from the image's origin: %#x", r>>8)
	}
}

// A PNG the budget lets through decodes as the standard decoder does it.
func TestDecodeIsTheStandardDecoder(t *testing.T) {
	t.Parallel()
	want := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	want.Set(1, 1, color.NRGBA{R: 9, G: 8, B: 7, A: 0xff})
	var buf bytes.Buffer
	if err := png.Encode(&buf, want); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(buf.Bytes())
	if err != nil || got.At(1, 1) != want.At(1, 1) || got.Bounds() != want.Bounds() {
		t.Errorf("decoded %v (%v)", got, err)
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
