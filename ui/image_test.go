package ui

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
	shots "github.com/visualq/vq/ui/components/image"
)

func testPNG(t testing.TB, w, h int) []byte {
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

// On a kitty terminal, arriving on a diff screen fetches its PNG (with no
// credential) and prints it above the screen.
func TestDiffScreenFetchesImageOnKitty(t *testing.T) {
	t.Parallel()
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
	m := newModel(t.Context(), Options{Fetch: fetchFrom(client, s.URL), Getenv: func(k string) string {
		return map[string]string{"TERM": "xterm-kitty"}[k]
	}}, api.Call{Tool: "get_diff_stats"}, resp)

	msg := m.top().askImage()()
	im, ok := msg.(shots.Msg)
	if !ok || im.Err != nil || !bytes.Equal(im.PNG, pic) {
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
	m.top().shots = shots.Model{}
	if _, cmd := m.Update(im); cmd != nil {
		t.Error("an image printed over a screen it does not belong to")
	}
}

// shotsServer serves a screen's three screenshots from images, by name
// (diff.png, baseline.png, test.png), and a diff answer linking them.
func shotsServer(t *testing.T, images map[string][]byte) (*httptest.Server, *api.ToolResponse) {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(images[strings.TrimPrefix(r.URL.Path, "/")]) //nolint:errcheck
	}))
	t.Cleanup(s.Close)
	raw := answerJSON(t, map[string]any{"tool": "get_diff_stats", "data": map[string]any{"changedPixels": 12,
		"baselineImageUrl": s.URL + "/baseline.png", "testImageUrl": s.URL + "/test.png", "diffImageUrl": s.URL + "/diff.png"}})
	resp, err := api.DecodeToolResponse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return s, resp
}

// fetchFrom fetches screenshots as at run time, from home's origin.
func fetchFrom(client *api.Client, home string) func(context.Context, string, int64) ([]byte, error) {
	return func(ctx context.Context, link string, max int64) ([]byte, error) {
		return client.FetchPublic(ctx, home, link, max)
	}
}

// previewModel opens the TUI on resp at width×height in tmux (half-block
// previews), the screenshots fetched as at run time from the VisualQ
// server at home.
func previewModel(t *testing.T, home string, resp *api.ToolResponse, width, height int, opened *[]string) *Model {
	t.Helper()
	client := api.New(api.Options{BaseURL: home})
	m := newModel(t.Context(), Options{Fetch: fetchFrom(client, home), Getenv: func(k string) string { return map[string]string{"TMUX": "1"}[k] },
		Open: func(link string) error { *opened = append(*opened, link); return nil }}, api.Call{Tool: "get_diff_stats"}, resp)
	update(m, tea.WindowSizeMsg{Width: width, Height: height})
	drain(m, m.top().askImage())
	return m
}

// The image bombs of issue 29 as a screen's screenshots: each is refused
// from its header and says so where its picture would be, and the rest of
// the screen works; the one within the budget is drawn.
func TestImageBombsShowAsTooLargeAndTheScreenWorks(t *testing.T) {
	t.Parallel()
	srv, resp := shotsServer(t, map[string][]byte{
		"diff.png":     testkit.DeclaredPNG(t, 100000, 100000, testkit.PNGRGBA, 8, false),
		"baseline.png": testkit.BlankPNG(t, 10000, 10000),
		"test.png":     testPNG(t, 64, 40),
	})
	var opened []string
	m := previewModel(t, srv.URL, resp, 100, 30, &opened)
	mustContain(t, checkBounded(t, m), "diff: image too large (100000×100000)", "diff image  (o opens it, y copies it, z full screen, i shows the baseline)")
	press(m, "i")
	mustContain(t, checkBounded(t, m), "baseline: image too large (10000×10000)", "baseline image  (o opens it, y copies it, z full screen, i shows the test)")
	press(m, "i")
	text := checkBounded(t, m)
	mustContain(t, text, "▀", "test image  (o opens it, y copies it, z full screen, i shows the diff)", "/test.png")
	if strings.Contains(text, "too large") {
		t.Errorf("the test image is refused:\n%s", text)
	}
	press(m, "o")
	if len(opened) != 1 || !strings.HasSuffix(opened[0], "/test.png") {
		t.Errorf("o opened %q, want the test image shown", opened)
	}
	for _, k := range []string{"down", "v", "v", "?", "?", "tab", "i"} {
		press(m, k)
		checkBounded(t, m)
	}
	mustContain(t, plainText(m), "diff: image too large (100000×100000)", "changedPixels")
}

// i cycles diff, baseline, test, each its own picture and link; o opens
// and y copies the one shown; a screen with only a diff has no i.
func TestPreviewCyclesBaselineTestAndDiff(t *testing.T) {
	t.Parallel()
	red, green, blue := solidPNG(t, color.RGBA{0xff, 0, 0, 0xff}), solidPNG(t, color.RGBA{0, 0xff, 0, 0xff}), solidPNG(t, color.RGBA{0, 0, 0xff, 0xff})
	srv, resp := shotsServer(t, map[string][]byte{"diff.png": red, "baseline.png": green, "test.png": blue})
	var opened []string
	m := previewModel(t, srv.URL, resp, 100, 30, &opened)
	for _, want := range []struct{ name, colour, next string }{
		{"diff", "38;2;255;0;0m", "baseline"}, {"baseline", "38;2;0;255;0m", "test"}, {"test", "38;2;0;0;255m", "diff"}, {"diff", "38;2;255;0;0m", "baseline"},
	} {
		content := m.View().Content
		if !strings.Contains(content, want.colour) {
			t.Errorf("%s: the preview is not its picture (%s)", want.name, want.colour)
		}
		mustContain(t, plainText(m), want.name+" image  (o opens it, y copies it, z full screen, i shows the "+want.next+")", "/"+want.name+".png", "i "+want.next+" image")
		_, cmd := m.Update(keyMsg("y"))
		copied, ok := cmd().(copiedMsg)
		if !ok || !strings.HasSuffix(copied.osc52, "\a") || !strings.HasPrefix(copied.report, want.name+" image link sent to the terminal's clipboard (OSC 52)") {
			t.Errorf("%s: y gave %#v", want.name, copied)
		}
		press(m, "o")
		if !strings.HasSuffix(opened[len(opened)-1], "/"+want.name+".png") {
			t.Errorf("%s: o opened %s", want.name, opened[len(opened)-1])
		}
		press(m, "i")
	}
	// The name heads the picture; z shows it over the whole screen, i the next there, esc (or z) goes back.
	if text := plainText(m); strings.Index(text, "baseline image") > strings.Index(text, "▀") {
		t.Errorf("the picture comes before its name:\n%s", text)
	}
	before := strings.Count(m.View().Content, "▀")
	press(m, "z")
	full := plainText(m)
	if !strings.HasPrefix(full, "baseline image  (z or esc goes back, i shows the test)") || strings.Count(m.View().Content, "▀") <= before {
		t.Errorf("z shows no larger picture under its name (%d cells before):\n%s", before, full)
	}
	press(m, "i")
	if full := plainText(m); !strings.HasPrefix(full, "test image") || !strings.Contains(m.View().Content, "38;2;0;0;255m") {
		t.Errorf("i in full screen does not show the test image:\n%s", full)
	}
	press(m, "esc")
	mustContain(t, plainText(m), "test image  (o opens it", "changedPixels")

	only := &api.ToolResponse{OK: true, Tool: "get_diff_stats", Data: []byte(`{"diffImageUrl":"http://127.0.0.1:1/diff.png"}`),
		NextActions: []api.NextAction{{Label: "Approve", Tool: "approve_vrt_results"}}}
	m = newModel(t.Context(), Options{Getenv: func(string) string { return "" }}, api.Call{Tool: "get_diff_stats"}, only)
	press(m, "?")
	if text := plainText(m); strings.Contains(text, "next image") || strings.Contains(text, "i shows") {
		t.Errorf("i is offered with one image:\n%s", text)
	}
}

// Screenshots off the VisualQ server are not fetched when their screen
// opens: a link to another port says where the image is, and o opens it
// in the browser; a redirect to another port (302, or 307 with a body) is
// not followed. The other port receives no request; a redirect within the
// server is followed and drawn.
func TestScreenshotsOffTheServerAreNotFetched(t *testing.T) {
	t.Parallel()
	var asked atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Write(solidPNG(t, color.RGBA{0xff, 0, 0, 0xff})) //nolint:errcheck
	}))
	t.Cleanup(other.Close)
	host := strings.TrimPrefix(other.URL, "http://")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/diff.png":
			http.Redirect(w, r, other.URL+"/admin/secret.png", http.StatusFound)
		case "/test.png":
			w.Header().Set("Location", other.URL+"/admin/secret.png")
			w.WriteHeader(http.StatusTemporaryRedirect)
			w.Write([]byte("moved")) //nolint:errcheck
		case "/baseline.png":
			http.Redirect(w, r, "/stored/baseline.png", http.StatusFound)
		default:
			w.Write(solidPNG(t, color.RGBA{0, 0xff, 0, 0xff})) //nolint:errcheck
		}
	}))
	t.Cleanup(srv.Close)
	for _, away := range []string{"diffImageUrl", "baselineImageUrl", "testImageUrl"} {
		links := map[string]any{"changedPixels": 12,
			"diffImageUrl": srv.URL + "/diff.png", "baselineImageUrl": srv.URL + "/baseline.png", "testImageUrl": srv.URL + "/test.png"}
		links[away] = other.URL + "/elsewhere.png"
		resp, err := api.DecodeToolResponse(answerJSON(t, map[string]any{"tool": "get_diff_stats", "data": links}))
		if err != nil {
			t.Fatal(err)
		}
		var opened []string
		m := previewModel(t, srv.URL, resp, 100, 30, &opened)
		shown := map[string]string{}
		for _, name := range []string{"diff", "baseline", "test"} {
			shown[name] = plainText(m)
			if links[name+"ImageUrl"] == other.URL+"/elsewhere.png" {
				mustContain(t, shown[name], name+": image on "+host+", not on the VisualQ server")
				press(m, "o")
				if len(opened) != 1 || opened[0] != other.URL+"/elsewhere.png" {
					t.Errorf("o opened %q, want the link to the other port", opened)
				}
			}
			press(m, "i")
		}
		if away != "baselineImageUrl" {
			mustContain(t, shown["baseline"], "▀")
		}
		if away != "diffImageUrl" {
			mustContain(t, shown["diff"], "diff: refused redirect to another host ("+host+")")
		}
		if away != "testImageUrl" {
			mustContain(t, shown["test"], "test: refused redirect to another host ("+host+")")
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the other port received %d requests", n)
	}
}

// solidPNG is a 32×20 PNG of one colour.
func solidPNG(t testing.TB, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 32, 20))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// y copies the shown link the way vq prove --copy does: inside tmux into
// a tmux buffer, which the status line names.
func TestCopyGoesToATmuxBuffer(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake tmux is a shell script")
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "tmux")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\" > \"$0.args\"\ncat > \"$0.in\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	resp := &api.ToolResponse{OK: true, Tool: "get_diff_stats", Data: []byte(`{"diffImageUrl":"http://127.0.0.1:1/diff.png"}`),
		NextActions: []api.NextAction{{Label: "Approve", Tool: "approve_vrt_results"}}}
	m := newModel(t.Context(), Options{Getenv: func(k string) string { return map[string]string{"TMUX": "/tmp/sock,1,0"}[k] }}, api.Call{Tool: "get_diff_stats"}, resp)
	_, cmd := m.Update(keyMsg("y"))
	msg := cmd()
	if c, ok := msg.(copiedMsg); !ok || c.osc52 != "" {
		t.Fatalf("y gave %#v", msg)
	}
	update(m, msg)
	mustContain(t, plainText(m), "diff image link copied to a tmux buffer (tmux load-buffer -w -)")
	got, _ := os.ReadFile(fake + ".in")
	args, _ := os.ReadFile(fake + ".args")
	if string(got) != "http://127.0.0.1:1/diff.png" || strings.TrimSpace(string(args)) != "-S /tmp/sock load-buffer -w -" {
		t.Errorf("tmux %s got %q", args, got)
	}
}

// On a terminal that draws images itself, the PNG is held to the same
// budget before it is sent: a bomb is not printed, and the preview says
// why.
func TestImageBombIsNotSentToTheTerminal(t *testing.T) {
	t.Parallel()
	srv, resp := shotsServer(t, map[string][]byte{"diff.png": testkit.DeclaredPNG(t, 100000, 100000, testkit.PNGRGBA, 8, false)})
	client := api.New(api.Options{BaseURL: srv.URL})
	m := newModel(t.Context(), Options{Fetch: fetchFrom(client, srv.URL), Getenv: func(k string) string {
		return map[string]string{"TERM": "xterm-kitty"}[k]
	}}, api.Call{Tool: "get_diff_stats"}, resp)
	msg := m.top().askImage()()
	if _, cmd := m.Update(msg); cmd != nil {
		t.Errorf("the bomb was printed: %#v", cmd())
	}
	mustContain(t, plainText(m), "diff: image too large (100000×100000)")
}

// At 120 columns the selected check's diff is drawn beside the list,
// fetched through the screen's own fetch (the server's origin only); at
// 119 there is no room and nothing is fetched.
func TestTheDiffBesideTheList(t *testing.T) {
	t.Parallel()
	s := triageServer(t, 3)
	m := start(t, s, failuresCall)
	var fetched atomic.Int64
	shot := solidPNG(t, color.RGBA{0xff, 0, 0, 0xff})
	m.fetch = func(context.Context, string, int64) ([]byte, error) { fetched.Add(1); return shot, nil }
	update(m, tea.WindowSizeMsg{Width: 119, Height: 40})
	if text := plainText(m); strings.Contains(text, "│ diff") || fetched.Load() != 0 {
		t.Errorf("a diff beside the list at 119 columns (%d fetched):\n%s", fetched.Load(), text)
	}
	update(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	text := plainText(m)
	mustContain(t, text, "│ diff · Inspect Page 1 desktop", "│ ▀")
	if !strings.Contains(m.View().Content, "38;2;255;0;0m") || fetched.Load() != 1 {
		t.Errorf("the diff beside is not its picture (%d fetched):\n%s", fetched.Load(), text)
	}
	if calls := s.received(); len(calls) != 2 || calls[1].Tool != "get_diff_stats" {
		t.Errorf("calls %+v, want the failures, then the selected check's diff stats", calls)
	}
}
