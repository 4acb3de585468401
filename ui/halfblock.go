package ui

import (
	"image"
	"image/draw"
	"strconv"
	"strings"
)

// halfBlocks draws img in at most cols columns and rows lines of "▀"
// cells, two pixels a cell: the upper in the foreground colour, the lower
// in the background. The picture keeps its aspect ratio (a cell is about
// twice as tall as wide, so two pixels a cell make square pixels). Each
// pixel is the average of the source pixels it covers, so thin lines of a
// diff still tint their cell instead of vanishing between samples.
//
// Colours are 24-bit; the renderer brings them down to what the terminal
// has (256 colours, 16), as it does for every other style.
func halfBlocks(img image.Image, cols, rows int) []string {
	src := asRGBA(img)
	b := src.Bounds()
	if b.Dx() == 0 || b.Dy() == 0 || cols < 1 || rows < 1 {
		return nil
	}
	w := cols
	h := max(1, w*b.Dy()/b.Dx())
	if h > 2*rows {
		h = 2 * rows
		w = max(1, h*b.Dx()/b.Dy())
	}
	h += h % 2
	px := shrink(src, w, h)
	lines := make([]string, 0, h/2)
	var sb strings.Builder
	for y := 0; y < h; y += 2 {
		sb.Reset()
		var fg, bg [3]uint8
		for x := range w {
			top, bottom := px[y*w+x], px[(y+1)*w+x]
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

// asRGBA is img as *image.RGBA, converted only when it is another kind.
func asRGBA(img image.Image) *image.RGBA {
	if rgba, ok := img.(*image.RGBA); ok {
		return rgba
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba
}

// shrink averages src into w×h pixels (a box filter), row by row: each
// source pixel is read once. Transparent parts are drawn as they are
// stored, premultiplied, so they come out dark.
func shrink(src *image.RGBA, w, h int) [][3]uint8 {
	b := src.Bounds()
	sw, sh := b.Dx(), b.Dy()
	out := make([][3]uint8, w*h)
	sums := make([][4]uint32, w) // r, g, b, count of one output row
	// column is the output column of each source column.
	column := make([]int, sw)
	for x := range sw {
		column[x] = x * w / sw
	}
	for ty := range h {
		clear(sums)
		y0, y1 := ty*sh/h, max((ty+1)*sh/h, ty*sh/h+1)
		for y := y0; y < y1 && y < sh; y++ {
			row := src.Pix[src.PixOffset(b.Min.X, b.Min.Y+y):][:4*sw]
			for x := range sw {
				s := &sums[column[x]]
				s[0] += uint32(row[4*x])
				s[1] += uint32(row[4*x+1])
				s[2] += uint32(row[4*x+2])
				s[3]++
			}
		}
		for tx := range w {
			s := sums[tx]
			if s[3] > 0 {
				out[ty*w+tx] = [3]uint8{uint8(s[0] / s[3]), uint8(s[1] / s[3]), uint8(s[2] / s[3])}
			}
		}
	}
	return out
}
