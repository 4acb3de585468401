package imagesafe

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/visualq/vq/internal/testkit"
)

// FuzzDecodeFit decodes any bytes: nothing panics, an image past the
// budget is refused from its header (it costs under a megabyte), and one
// let through comes out no larger than the side asked for.
func FuzzDecodeFit(f *testing.F) {
	var small bytes.Buffer
	img := image.NewPaletted(image.Rect(0, 0, 9, 5), color.Palette{color.Black, color.White})
	if err := png.Encode(&small, img); err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{
		small.Bytes(),
		testkit.DeclaredPNG(f, 100000, 100000, testkit.PNGRGBA, 8, false),
		testkit.DeclaredPNG(f, 6000, 6000, testkit.PNGRGBA, 16, false),
		testkit.DeclaredPNG(f, 5000, 5000, testkit.PNGRGBA, 8, true),
		testkit.DeclaredPNG(f, 3, 2, testkit.PNGGray, 16, true),
		testkit.BlankPNG(f, 2000, 30),
		[]byte("\x89PNG\r\n\x1a\n"),
	} {
		f.Add(seed, uint16(4))
	}
	f.Fuzz(func(t *testing.T, data []byte, side uint16) {
		var fit image.Image
		var err error
		used := allocated(func() { fit, err = DecodeFit(data, int(side)) })
		if _, tooLarge := err.(*TooLargeError); tooLarge && used > 1<<20 {
			t.Fatalf("a refused image cost %d bytes", used)
		}
		if err != nil {
			return
		}
		if b := fit.Bounds(); side > 0 && (b.Dx() > int(side) || b.Dy() > int(side)) {
			t.Fatalf("fit to %d: %v", side, b)
		}
	})
}
