package sandbox

import (
	"bytes"
	"encoding/json"
	"image"
	"image/draw"
	"image/png"
	"math"
	"net/http"
	"strings"
	"testing"
)

// TestDiffImages fetches the three PNGs of each run_abc check (no key) and
// checks them against the diff stats: same size as the viewport, baseline
// and test differ, the diff's magenta pixels are exactly the changed
// pixels, inside the reported region.
func TestDiffImages(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{})
	kinds := map[string]bool{}
	for _, ch := range seedRuns()["run_abc"].checks {
		t.Run(ch.ScenarioLabel+"/"+ch.Viewport, func(t *testing.T) {
			stats := decodeData[diffStats](t, callTool(t, ts, http.StatusOK, "get_diff_stats",
				map[string]any{"runId": "run_abc", "scenarioLabel": ch.ScenarioLabel, "viewport": ch.Viewport}))
			kinds[stats.Change] = true
			baseline, test, diff := fetchPNG(t, stats.BaselineImageURL), fetchPNG(t, stats.TestImageURL), fetchPNG(t, stats.DiffImageURL)
			size := viewportSizes[ch.Viewport]
			for _, img := range []image.Image{baseline, test, diff} {
				if img.Bounds().Size() != size {
					t.Fatalf("image is %v, want the %s viewport %v", img.Bounds().Size(), ch.Viewport, size)
				}
			}
			region := stats.Regions[0]
			inRegion := image.Rect(region.X, region.Y, region.X+region.Width, region.Y+region.Height)
			b, tt, d := rgba(baseline), rgba(test), rgba(diff)
			magenta, changed := 0, 0
			magentaPixel := []byte{diffMagenta.R, diffMagenta.G, diffMagenta.B, diffMagenta.A}
			for y := range size.Y {
				// Skip rows without change: comparing pixel by pixel everywhere
				// is slow under -race. Faded pixels hold no 0x00 byte, so a
				// magenta match cannot straddle two pixels.
				if bytes.Equal(row(b, y), row(tt, y)) && !bytes.Contains(row(d, y), magentaPixel) {
					continue
				}
				for x := range size.X {
					if b.RGBAAt(x, y) != tt.RGBAAt(x, y) {
						changed++
					}
					if d.RGBAAt(x, y) == diffMagenta {
						magenta++
						if !image.Pt(x, y).In(inRegion) {
							t.Fatalf("changed pixel (%d,%d) outside region %v", x, y, inRegion)
						}
					}
				}
			}
			if magenta == 0 || magenta != changed || magenta != stats.ChangedPixels {
				t.Errorf("magenta %d, changed %d, changedPixels %d: want all equal and > 0", magenta, changed, stats.ChangedPixels)
			}
			if pct := 100 * float64(changed) / float64(stats.TotalPixels); math.Abs(pct-stats.MismatchPercent) > 0.15 {
				t.Errorf("%.2f%% of pixels changed, check says %.1f%%", pct, stats.MismatchPercent)
			}
		})
	}
	if !kinds["moved"] || !kinds["recoloured"] {
		t.Errorf("run_abc shows changes %v, want both a move and a recolour", kinds)
	}
	for _, path := range []string{"/sandbox/images/run_nope/Homepage/desktop/diff.png", "/sandbox/images/run_abc/Homepage/mobile/diff.png", "/sandbox/images/run_abc/Homepage/desktop/other.png"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %v, want 404", path, resp.Status)
		}
	}
}

func fetchPNG(t *testing.T, url string) image.Image {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("GET %s: %s %s", url, resp.Status, resp.Header.Get("Content-Type"))
	}
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body) //nolint:errcheck // png.Decode reports a short body.
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", url, err)
	}
	return img
}

func row(img *image.RGBA, y int) []byte {
	start := img.PixOffset(0, y)
	return img.Pix[start : start+4*img.Rect.Dx()]
}

// rgba converts a decoded PNG to RGBA so pixels compare as plain values.
func rgba(img image.Image) *image.RGBA {
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Rect, img, image.Point{}, draw.Src)
	return out
}

// TestFailuresLinkTheirImages: get_run_failures gives the run's page (the
// url its CI start answered) and a diff image per failure that opens
// without a key, for the host the client used.
func TestFailuresLinkTheirImages(t *testing.T) {
	t.Parallel()
	ts := testServer(t, Options{})
	var started ciStarted
	if err := json.Unmarshal(ciPost(t, ts, KeyAdmin, "run_vrt", `{"branch":"feature/new-header"}`).body, &started); err != nil {
		t.Fatal(err)
	}
	data := decodeData[runFailures](t, callTool(t, ts, http.StatusOK, "get_run_failures", map[string]any{"runId": started.RunID}))
	if data.URL != started.URL || len(data.Failures) != 3 {
		t.Fatalf("url %q (started at %q), %d failures", data.URL, started.URL, len(data.Failures))
	}
	for _, f := range data.Failures {
		if !strings.HasPrefix(f.DiffURL, ts.URL+"/") {
			t.Errorf("diffUrl %q is not on the host the client used", f.DiffURL)
		}
		if img := fetchPNG(t, f.DiffURL); img.Bounds().Size() != viewportSizes[f.Viewport] {
			t.Errorf("%s: image is %v, want the %s viewport", f.DiffURL, img.Bounds().Size(), f.Viewport)
		}
	}
}
