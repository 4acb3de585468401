package cmd

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// asRelease makes the cmd test binary, run as vq, the release of that
// version, as the release build's -ldflags -X does (see TestMain).
const asRelease = "VQ_TEST_AS_RELEASE"

// updateFeed serves a release feed on loopback answering body, and counts
// the requests it got.
func updateFeed(t *testing.T, body string) (string, *atomic.Int32) {
	t.Helper()
	asked := new(atomic.Int32)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s.URL, asked
}

// noticeEnv is a person's terminal with the update notice on: vq 1.4.2,
// the feed at feed, the cache in cache, no CI.
func noticeEnv(feed, cache string) map[string]string {
	return terminalEnv(map[string]string{asRelease: "1.4.2", "VQ_UPDATE_URL": feed, "XDG_CACHE_HOME": cache,
		"VQ_NO_UPDATE_NOTIFIER": "", "CI": "", "BUILD_NUMBER": "", "RUN_ID": ""})
}

// waitForFile returns once path exists and ok holds for its bytes; the
// deadline only bounds a hung run.
func waitForFile(t *testing.T, path string, ok func([]byte) bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && ok(b) {
			return
		}
	}
	t.Fatalf("%s never appeared as expected", path)
}

func anyBytes([]byte) bool { return true }

// TestUpdateNoticeOnATerminal: a person on a terminal is told once that a
// newer vq is out, after the command, with the way to upgrade; the next
// command within the day neither tells them again nor asks the feed.
func TestUpdateNoticeOnATerminal(t *testing.T) {
	t.Parallel()
	feed, asked := updateFeed(t, `{"tag_name":"v1.5.0","name":"ignored"}`)
	cache := t.TempDir()
	env, state := noticeEnv(feed, cache), filepath.Join(cache, "vq", "update.json")
	// the upgrade command follows (for this test binary, the release page)
	const notice = "hint: vq 1.5.0 is out (this is 1.4.2); to upgrade: download it from "

	p := startTmux(t, 140, 30, env, "true", "demo")
	p.waitFor("the triage TUI", shows("q quit"))
	waitForFile(t, state, anyBytes) // the background check answered
	p.keys("q")
	screen := p.waitFor("vq's exit", shows("EXIT=0"))
	if n := strings.Count(screen, notice); n != 1 {
		t.Fatalf("the notice shows %d times, want once:\n%s", n, screen)
	}
	if info, err := os.Stat(state); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the state file: %v %v, want private (0600)", info, err)
	}

	p = startTmux(t, 140, 30, env, "true", "version")
	screen = p.waitFor("vq's exit", shows("EXIT=0"))
	if strings.Contains(screen, "is out") || asked.Load() != 1 {
		t.Fatalf("the second command within a day: feed asked %d times (want 1), screen:\n%s", asked.Load(), screen)
	}
	// A day later: asked and told again.
	yesterday := time.Now().Add(-25 * time.Hour).Format(time.RFC3339)
	stale := fmt.Sprintf(`{"checkedAt":%q,"latest":"v1.5.0","notifiedAt":%q}`, yesterday, yesterday)
	if err := os.WriteFile(state, []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	p = startTmux(t, 140, 30, env, "true", "demo")
	p.waitFor("the triage TUI", shows("q quit"))
	waitForFile(t, state, func(b []byte) bool { return !strings.Contains(string(b), `"checkedAt":"`+yesterday) })
	p.keys("q")
	screen = p.waitFor("vq's exit", shows("EXIT=0"))
	if strings.Count(screen, notice) != 1 || asked.Load() != 2 {
		t.Fatalf("a day later: feed asked %d times (want 2), screen:\n%s", asked.Load(), screen)
	}
	// vq --version on a terminal tells too: it takes the path every
	// command takes, without signal handlers only.
	if err := os.WriteFile(state, []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	p = startTmux(t, 140, 30, env, "true", "--version")
	screen = p.waitFor("vq's exit", shows("EXIT=0"))
	if !strings.Contains(screen, "vq 1.4.2 (commit ") || strings.Count(screen, notice) != 1 {
		t.Fatalf("vq --version on a terminal, a day later: want the version line and the notice once, screen:\n%s", screen)
	}
}

// TestUpdateNoticeOff: no notice, and no request to the feed, under CI,
// with VQ_NO_UPDATE_NOTIFIER, for vq mcp serve, vq sandbox and completion;
// a hostile feed's text never reaches the terminal.
func TestUpdateNoticeOff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, feed string
		env        map[string]string
		args       []string
		input      string // typed first
		ready      string // on the screen once the command runs
		keys       string // what ends it
		asks       int32
	}{
		{name: "CI", env: map[string]string{"CI": "true"}, args: []string{"demo"}, ready: "q quit", keys: "q"},
		{name: "off", env: map[string]string{"VQ_NO_UPDATE_NOTIFIER": "1"}, args: []string{"demo"}, ready: "q quit", keys: "q"},
		{name: "sandbox", args: []string{"sandbox", "--addr", "127.0.0.1:0"}, ready: "vqs_admin", keys: "C-c"},
		{name: "mcp serve", env: map[string]string{"VQ_BASE_URL": "http://127.0.0.1:9"}, args: []string{"mcp", "serve"},
			input: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
			ready: "serverInfo", keys: "C-d"},
		{name: "completion", args: []string{"__complete", "fail"}},
		{name: "hostile feed", feed: "{\"tag_name\":\"v9.0.0\\u001b]52;c;cm0gLXJmIH4=\\u0007\"}", args: []string{"demo"}, ready: "q quit", keys: "q", asks: 1},
		{name: "bogus version", feed: `{"tag_name":"v9.0.0; rm -rf ~"}`, args: []string{"demo"}, ready: "q quit", keys: "q", asks: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			feed, asked := updateFeed(t, tc.feed)
			cache := t.TempDir()
			env := noticeEnv(feed, cache)
			for k, v := range tc.env {
				env[k] = v
			}
			p := startTmux(t, 140, 30, env, "true", tc.args...)
			if tc.input != "" {
				p.keys("-l", tc.input)
				p.keys("Enter")
			}
			if tc.ready != "" {
				p.waitFor("the command running", shows(tc.ready))
			}
			if tc.asks > 0 {
				waitForFile(t, filepath.Join(cache, "vq", "update.json"), anyBytes)
			}
			if tc.keys != "" {
				p.keys(tc.keys)
			}
			screen := p.waitFor("vq's exit", shows("EXIT="))
			if strings.Contains(screen, "is out") || strings.Contains(screen, "rm -rf") || asked.Load() != tc.asks {
				t.Fatalf("feed asked %d times (want %d), screen:\n%s", asked.Load(), tc.asks, screen)
			}
		})
	}
}
