package image

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/visualq/vq/internal/testkit"
)

func TestDetectImageProtocol(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  map[string]string
		want Protocol
	}{
		{map[string]string{"TERM": "xterm-kitty"}, Kitty},
		{map[string]string{"TERM": "xterm-256color", "KITTY_WINDOW_ID": "3"}, Kitty},
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, ITerm},
		{map[string]string{"TERM_PROGRAM": "WezTerm"}, ITerm},
		{map[string]string{"TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"}, None},
		{map[string]string{"TERM": "xterm-256color", "TERM_PROGRAM": "Apple_Terminal"}, None},
	} {
		if got := Detect(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: got %v, want %v", c.env, got, c.want)
		}
	}
}

func TestInlineImageReservesRowsAndCarriesThePNG(t *testing.T) {
	t.Parallel()
	pic := testkit.BlankPNG(t, 400, 200)
	payload := base64.StdEncoding.EncodeToString(pic)

	kitty, err := inline(Kitty, pic, 40, 30)
	if err != nil {
		t.Fatal(err)
	}
	// 40 columns of a 2:1 picture in 1:2 cells: 10 rows reserved.
	if !strings.HasPrefix(kitty, strings.Repeat("\n", 10)+"\x1b7\x1b[10A\r\x1b_Gf=100,a=T,q=2,C=1,c=40,r=10,m=0;"+payload+"\x1b\\") {
		t.Errorf("kitty sequence = %q", kitty)
	}
	iterm, err := inline(ITerm, pic, 40, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(iterm, "\x1b]1337;File=inline=1;size=") || !strings.Contains(iterm, "width=40;height=4;") || !strings.Contains(iterm, payload+"\a") {
		t.Errorf("iTerm2 sequence = %q", iterm)
	}
	if _, err := inline(Kitty, []byte("<html>not a png"), 40, 10); err == nil {
		t.Error("a non-image body was encoded")
	}
}

func TestKittyChunksLargeImages(t *testing.T) {
	t.Parallel()
	pic := testkit.BlankPNG(t, 1200, 900)
	pic = append(pic, bytes.Repeat([]byte{0}, 9000)...) // trailing bytes keep it decodable and make it long
	seq, err := inline(Kitty, pic, 80, 20)
	if err != nil {
		t.Fatal(err)
	}
	chunks := strings.Count(seq, "\x1b_G")
	want := (len(base64.StdEncoding.EncodeToString(pic)) + 4095) / 4096
	if chunks != want || strings.Count(seq, "m=0;") != 1 {
		t.Errorf("%d chunks (want %d), final markers %d", chunks, want, strings.Count(seq, "m=0;"))
	}
}

func TestHalfBlocksKeepAspectAndColour(t *testing.T) {
	t.Parallel()
	img := image.NewRGBA(image.Rect(0, 0, 1280, 800))
	for y := range 800 {
		for x := range 1280 {
			c := color.RGBA{0xff, 0xff, 0xff, 0xff}
			if x >= 640 {
				c = color.RGBA{0xff, 0, 0xff, 0xff}
			}
			img.SetRGBA(x, y, c)
		}
	}
	lines := halfBlocks(img, 40, 100)
	if len(lines) != 13 { // 40 columns × 25 pixels, two a line
		t.Errorf("%d lines, want 13", len(lines))
	}
	if !strings.Contains(lines[0], "\x1b[38;2;255;0;255m") || !strings.HasPrefix(lines[0], "\x1b[38;2;255;255;255m") {
		t.Errorf("colours lost: %q", lines[0])
	}
	if n := strings.Count(lines[0], "▀"); n != 40 {
		t.Errorf("%d cells, want 40", n)
	}
	if short := halfBlocks(img, 40, 4); len(short) != 4 {
		t.Errorf("a 4-line bound gave %d lines", len(short))
	}
}

// BenchmarkHalfBlocks1280x800 draws a desktop diff in half-blocks at 120
// columns. Goal: under 20 ms.
func BenchmarkHalfBlocks1280x800(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 1280, 800))
	for y := range 800 {
		for x := range 1280 {
			img.SetRGBA(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 0xff})
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(halfBlocks(img, 120, 100)) == 0 {
			b.Fatal("nothing drawn")
		}
	}
}
