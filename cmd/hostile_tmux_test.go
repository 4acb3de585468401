package cmd

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// imageBombServer is a VisualQ server whose one failure's diff links the
// given screenshots, which it serves by name.
func imageBombServer(t *testing.T, images map[string][]byte) *testkit.Server {
	t.Helper()
	check := map[string]any{"runId": "run_x", "scenarioLabel": "Home", "viewport": "desktop"}
	failures := testkit.OK("get_run_failures", "✗ 1 of 2 checks failed", map[string]any{"runId": "run_x", "failed": 1, "total": 2},
		testkit.NextActions(api.NextAction{Label: "Inspect Home desktop", Tool: "get_diff_stats", Args: check}))
	var s *testkit.Server
	s = testkit.NewServer(t, func(c testkit.Call) testkit.Reply {
		if image, ok := images[strings.TrimPrefix(c.Path, "/")]; ok {
			return testkit.Reply{Header: map[string]string{"Content-Type": "image/png"}, Body: string(image)}
		}
		if c.Tool == "get_diff_stats" {
			return testkit.Answer(200, testkit.OK("get_diff_stats", "Home on desktop: 12 pixels changed.", map[string]any{"changedPixels": 12,
				"baselineImageUrl": s.URL + "/baseline.png", "testImageUrl": s.URL + "/test.png", "diffImageUrl": s.URL + "/diff.png"},
				testkit.NextActions(api.NextAction{Label: "Back to the failures of run_x", Tool: "get_run_failures", Args: map[string]any{"runId": "run_x"}})))
		}
		return testkit.Answer(200, failures)
	})
	return s
}

// peakRSS is the peak resident set of process pid (VmHWM), in bytes: that
// of the memory it has had since its exec, which is its own. The test is
// skipped where /proc cannot tell.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	peak, err := vmHWM(strconv.Itoa(pid))
	if err != nil {
		t.Skipf("no peak RSS to read: %v", err)
	}
	return peak
}

// vmHWM is the VmHWM of /proc/PID/status (PID a number or self), in bytes.
func vmHWM(pid string) (int64, error) {
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%s/status", pid)
}

// The image bombs of issue 29 served as a diff's screenshots, as vq
// failures meets them on Enter: the 78-byte PNG declaring 100000×100000
// (which crashed vq out of memory, leaving the terminal raw) and the
// 97 KB one of 10000×10000 grayscale (1.5 GB of RSS) each show "image too
// large", and the screen works: i moves on to the test screenshot, a
// 6000×6000 PNG within the budget, which is drawn; q exits 0. vq's peak
// RSS stays under imageBombRSS.
func TestImageBombsInTheTUI(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("drives a terminal")
	}
	if raceDetector {
		t.Skip("peak memory is measured in the run without the race detector")
	}
	s := imageBombServer(t, map[string][]byte{
		"diff.png":     testkit.DeclaredPNG(t, 100000, 100000, testkit.PNGRGBA, 8, false),
		"baseline.png": testkit.BlankPNG(t, 10000, 10000),
		"test.png":     testkit.BlankPNG(t, 6000, 6000),
	})
	env := terminalEnv(s.Env())
	p := startTmux(t, 120, 40, env, "true", "failures", "run_x")
	p.waitFor("the failures", shows("✗ 1 of 2 checks failed", "Inspect Home desktop"))
	p.keys("Enter")
	p.waitFor("the diff's bomb refused", shows("run_x › Inspect Home desktop", "changedPixels", "diff: image too large (100000×100000)",
		"diff image  (o opens it, y copies it, z full screen, i shows the baseline)"))
	p.keys("i")
	p.waitFor("the baseline's bomb refused", shows("baseline: image too large (10000×10000)", "/baseline.png"))
	p.keys("i")
	p.waitFor("the test screenshot drawn", shows("test image  (o opens it, y copies it, z full screen, i shows the diff)", "▀"))
	peak := peakRSS(t, p.pid())
	p.keys("q")
	p.waitFor("vq's exit", shows("EXIT=0"))
	t.Logf("peak RSS %d MiB", peak>>20)
	if peak > imageBombRSS {
		t.Errorf("peak RSS %d MiB, over %d MiB", peak>>20, imageBombRSS>>20)
	}
}

// imageBombRSS bounds vq's peak RSS in TestImageBombsInTheTUI: the
// 6000×6000 grayscale screenshot decodes to 36 MB, which vq holds only
// while it scales it down.
const imageBombRSS = 160 << 20

// A diff of the sandbox in tmux, as a person reviews it: i shows the
// baseline, the test and the diff again, each its own picture and link;
// y puts the link shown in a tmux buffer and says so, with tmux's default
// set-clipboard (external, where the OSC 52 vq used to send was dropped
// while vq said it had copied) and with set-clipboard on.
func TestScreenshotsCycleAndCopyInTmux(t *testing.T) {
	t.Parallel()
	for _, setClipboard := range []string{"external", "on"} {
		t.Run("set-clipboard "+setClipboard, func(t *testing.T) {
			p, _ := sandboxTUI(t, sandbox.Options{}, 120, 40, "failures", "run_big")
			p.run("set-option", "-g", "set-clipboard", setClipboard)
			p.waitFor("the failures", shows("failures (350)", "enter inspect"))
			p.keys("Enter")
			p.waitFor("the diff and its preview", shows("run_big › Inspect Homepage 1 desktop", "▀",
				"diff image  (o opens it, y copies it, z full screen, i shows the baseline)"))
			pictures := map[string]string{}
			for _, shot := range []struct{ name, next string }{{"diff", "baseline"}, {"baseline", "test"}, {"test", "diff"}} {
				p.waitFor("the "+shot.name+" shown", shows(shot.name+" image  (o opens it, y copies it, z full screen, i shows the "+shot.next+")", "/"+shot.name+".png", "▀"))
				pictures[shot.name] = halfBlockRows(p.run("capture-pane", "-e", "-p", "-t", "vq"))
				p.keys("y")
				p.waitFor("the copy", shows(shot.name+" image link copied to a tmux buffer (tmux load-buffer -w -)"))
				if buffer := p.run("show-buffer"); !strings.HasPrefix(buffer, "http://127.0.0.1:") || !strings.HasSuffix(buffer, "/run_big/Homepage%201/desktop/"+shot.name+".png") {
					t.Errorf("after y on the %s: tmux buffer %q", shot.name, buffer)
				}
				p.keys("i")
			}
			if pictures["diff"] == pictures["baseline"] || pictures["baseline"] == pictures["test"] || pictures["diff"] == "" {
				t.Errorf("the screenshots are not each their own picture:\n%v", pictures)
			}
			p.waitFor("the diff again", shows("diff image  (o opens it, y copies it, z full screen, i shows the baseline)"))
			p.keys("q")
			p.waitFor("vq's exit", shows("EXIT=0"))
		})
	}
}

// halfBlockRows are the lines of a coloured capture that draw a picture.
func halfBlockRows(screen string) string {
	var rows []string
	for _, line := range strings.Split(screen, "\n") {
		if strings.Count(line, "▀") > 4 {
			rows = append(rows, line)
		}
	}
	return strings.Join(rows, "\n")
}
