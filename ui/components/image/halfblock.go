package image

import (
	"image"
	"strconv"
	"strings"

	"github.com/visualq/vq/internal/imagesafe"
)

// halfBlocks draws img in at most cols×rows "▀" cells, two pixels a cell, never enlarged.
// Pixels average what they cover, so a diff's thin lines still tint their cell.
func halfBlocks(img image.Image, cols, rows int) []string {
	b := img.Bounds()
	if b.Dx() == 0 || b.Dy() == 0 || cols < 1 || rows < 1 {
		return nil
	}
	w := min(cols, b.Dx())
	h := max(1, w*b.Dy()/b.Dx())
	if h > 2*rows {
		h = 2 * rows
		w = max(1, h*b.Dx()/b.Dy())
	}
	h += h % 2
	px := imagesafe.Shrink(img, w, h)
	w, h = px.Rect.Dx(), px.Rect.Dy()
	at := func(x, y int) [3]uint8 {
		if y >= h {
			return [3]uint8{} // the lower half of an odd last line
		}
		p := px.Pix[px.PixOffset(x, y):]
		return [3]uint8{p[0], p[1], p[2]}
	}
	lines := make([]string, 0, (h+1)/2)
	var sb strings.Builder
	for y := 0; y < h; y += 2 {
		sb.Reset()
		var fg, bg [3]uint8
		for x := range w {
			top, bottom := at(x, y), at(x, y+1)
			if x == 0 || top != fg {
				sb.WriteString("\x1b[38;2;")
				writeRGB(&sb, top)
				fg = top
			}
			if x == 0 || bottom != bg {
				sb.WriteString("\x1b[48;2;")
				writeRGB(&sb, bottom)
				bg = bottom
			}
			sb.WriteString("▀")
		}
		sb.WriteString("\x1b[m")
		lines = append(lines, sb.String())
	}
	return lines
}

func writeRGB(sb *strings.Builder, c [3]uint8) {
	var buf [12]byte
	b := strconv.AppendUint(buf[:0], uint64(c[0]), 10)
	b = append(b, ';')
	b = strconv.AppendUint(b, uint64(c[1]), 10)
	b = append(b, ';')
	b = strconv.AppendUint(b, uint64(c[2]), 10)
	b = append(b, 'm')
	sb.Write(b)
}
