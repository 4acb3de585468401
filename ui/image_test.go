package ui

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
)

func TestDetectImageProtocol(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want imageProtocol
	}{
		{map[string]string{"TERM": "xterm-kitty"}, kittyImages},
		{map[string]string{"TERM": "xterm-256color", "KITTY_WINDOW_ID": "3"}, kittyImages},
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, itermImages},
		{map[string]string{"TERM_PROGRAM": "WezTerm"}, itermImages},
		{map[string]string{"TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"}, noImages},
		{map[string]string{"TERM": "xterm-256color", "TERM_PROGRAM": "Apple_Terminal"}, noImages},
	} {
		if got := detectImageProtocol(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: got %v, want %v", c.env, got, c.want)
		}
	}
}

func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, h/2, color.RGBA{0xff, 0, 0xff, 0xff})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestInlineImageReservesRowsAndCarriesThePNG(t *testing.T) {
	pic := testPNG(t, 400, 200)
	payload := base64.StdEncoding.EncodeToString(pic)

	kitty, err := inlineImage(kittyImages, pic, 40, 30)
	if err != nil {
		t.Fatal(err)
	}
	// 40 columns of a 2:1 picture in 1:2 cells: 10 rows reserved.
	if !strings.HasPrefix(kitty, strings.Repeat("\n", 10)+"\x1b7\x1b[10A\r\x1b_Gf=100,a=T,q=2,C=1,c=40,r=10,m=0;"+payload+"\x1b\\") {
		t.Errorf("kitty sequence = %q", kitty)
	}
	iterm, err := inlineImage(itermImages, pic, 40, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(iterm, "\x1b]1337;File=inline=1;size=") || !strings.Contains(iterm, "width=40;height=4;") || !strings.Contains(iterm, payload+"\a") {
		t.Errorf("iTerm2 sequence = %q", iterm)
	}
	if _, err := inlineImage(kittyImages, []byte("<html>not a png"), 40, 10); err == nil {
		t.Error("a non-image body was encoded")
	}
}

func TestKittyChunksLargeImages(t *testing.T) {
	pic := testPNG(t, 1200, 900)
	pic = append(pic, bytes.Repeat([]byte{0}, 9000)...) // trailing bytes keep it decodable and make it long
	seq, err := inlineImage(kittyImages, pic, 80, 20)
	if err != nil {
		t.Fatal(err)
	}
	chunks := strings.Count(seq, "\x1b_G")
	want := (len(base64.StdEncoding.EncodeToString(pic)) + 4095) / 4096
	if chunks != want || strings.Count(seq, "m=0;") != 1 {
		t.Errorf("%d chunks (want %d), final markers %d", chunks, want, strings.Count(seq, "m=0;"))
	}
}

// On a kitty terminal, arriving on a diff screen fetches its PNG (with no
// credential) and prints it above the screen.
func TestDiffScreenFetchesImageOnKitty(t *testing.T) {
	pic := testPNG(t, 100, 50)
	auth := make(chan string, 10)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth <- r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "image/png")
		w.Write(pic) //nolint:errcheck
	}))
	defer s.Close()
	resp := &api.ToolResponse{OK: true, Tool: "get_diff_stats", Data: []byte(`{"diffImageUrl":"` + s.URL + `/diff.png"}`),
		NextActions: []api.NextAction{{Label: "Approve", Tool: "approve_vrt_results"}}}
	// The client holds a key: the image request must not carry it.
	client := api.New(api.Options{BaseURL: s.URL, APIKey: "vqs_secret"})
	m := newModel(t.Context(), Options{Fetch: client.FetchPublic, Getenv: func(k string) string {
		return map[string]string{"TERM": "xterm-kitty"}[k]
	}}, api.Call{Tool: "get_diff_stats"}, resp)

	msg := m.top().askImage()()
	im, ok := msg.(imageMsg)
	if !ok || im.err != nil || !bytes.Equal(im.png, pic) {
		t.Fatalf("fetch gave %#v", msg)
	}
	if len(auth) != 1 || <-auth != "" {
		t.Errorf("image requests %d, or one carried a credential", len(auth))
	}
	if _, cmd := m.Update(im); cmd == nil || m.status != "" {
		t.Errorf("no print of the image (status %q)", m.status)
	}
	if m.top().askImage() != nil {
		t.Error("the image is fetched again for the same screen")
	}
	// An image that arrives once its screen is gone is not printed.
	m.top().images.diff = s.URL + "/other.png"
	if _, cmd := m.Update(im); cmd != nil {
		t.Error("an image printed over a screen it does not belong to")
	}
}
