package testkit

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"testing"
)

// PNG colour types and depths as an IHDR states them.
const (
	PNGGray = 0
	PNGRGBA = 6
)

// DeclaredPNG is a one-pixel PNG of the colour type and bit depth given
// whose header is rewritten to declare w×h pixels, interlaced or not: some
// 70 bytes that a decoder trusting the header allocates gigabytes for.
func DeclaredPNG(t testing.TB, w, h uint32, colorType, depth byte, interlaced bool) []byte {
	t.Helper()
	var img image.Image = image.NewGray(image.Rect(0, 0, 1, 1))
	switch {
	case colorType == PNGRGBA && depth == 16:
		img = image.NewNRGBA64(image.Rect(0, 0, 1, 1))
	case colorType == PNGRGBA:
		img = image.NewNRGBA(image.Rect(0, 0, 1, 1))
	case depth == 16:
		img = image.NewGray16(image.Rect(0, 0, 1, 1))
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// The signature (8), IHDR's length (4) and name (4), then width,
	// height, depth, colour type, compression, filter, interlace.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	b[24], b[25] = depth, colorType
	if interlaced {
		b[28] = 1
	}
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

// BlankPNG is a true w×h 8-bit grayscale PNG, every pixel black, written
// a row at a time: 10000×10000 takes about 100 KB, and decodes to 100 MB.
func BlankPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, PNGGray
	writeChunk(&out, "IHDR", ihdr)
	var idat bytes.Buffer
	z := zlib.NewWriter(&idat)
	row := make([]byte, 1+w) // filter type 0, then the pixels
	for range h {
		if _, err := z.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	writeChunk(&out, "IDAT", idat.Bytes())
	writeChunk(&out, "IEND", nil)
	return out.Bytes()
}

func writeChunk(out *bytes.Buffer, name string, data []byte) {
	binary.Write(out, binary.BigEndian, uint32(len(data))) //nolint:errcheck // a bytes.Buffer does not fail
	crc := crc32.NewIEEE()
	crc.Write([]byte(name)) //nolint:errcheck // a hash does not fail
	crc.Write(data)         //nolint:errcheck
	out.WriteString(name)
	out.Write(data)
	binary.Write(out, binary.BigEndian, crc.Sum32()) //nolint:errcheck
}
