// Package update tells a person, at most once a day, that a newer vq is
// out and how to upgrade it as it was installed. The check runs in the
// background: a command never waits for it; the notice comes at the end of
// a later command if the answer came too late for this one. What the feed
// says is server text: only a strict version number is taken from it.
//
// Imports: a leaf, nothing of vq but internal/privatefile and internal/textsafe.
package update

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/visualq/vq/internal/privatefile"
	"github.com/visualq/vq/internal/textsafe"
)

const (
	// DefaultFeed is GitHub's latest release of vq; VQ_UPDATE_URL replaces it.
	DefaultFeed = "https://api.github.com/repos/visualq/vq/releases/latest"
	releases    = "https://github.com/visualq/vq/releases/latest"
	interval    = 24 * time.Hour
	timeout     = 5 * time.Second
	maxFeed     = 1 << 20 // a release's JSON, its notes included
	maxState    = 4 << 10
)

// Check is one command's update check.
type Check struct {
	path, current, upgrade string
}

// state is the file beside vq's cache: when the feed was last asked, what it
// said, and when the person was last told.
type state struct {
	CheckedAt  time.Time `json:"checkedAt"`
	Latest     string    `json:"latest,omitempty"`
	NotifiedAt time.Time `json:"notifiedAt"`
}

// Start begins the check when it may run: a person's terminal on stderr, no
// CI, no VQ_NO_UPDATE_NOTIFIER, a release build (current is a version), a
// cache directory to keep the state in. It asks the feed in the background
// when the last answer is a day old; it returns nil when the check is off.
func Start(ctx context.Context, getenv func(string) string, terminal bool, current, cacheDir, exe string, goInstall bool) *Check {
	// CI systems set one of CI, BUILD_NUMBER, RUN_ID (the ones gh reads).
	off := getenv("VQ_NO_UPDATE_NOTIFIER") + getenv("CI") + getenv("BUILD_NUMBER") + getenv("RUN_ID")
	if _, release := parse(current); !terminal || cacheDir == "" || off != "" || !release {
		return nil
	}
	c := &Check{path: filepath.Join(cacheDir, "update.json"), current: current, upgrade: Upgrade(exe, goInstall)}
	if s := c.load(); stale(s.CheckedAt) {
		go c.ask(ctx, cmp.Or(getenv("VQ_UPDATE_URL"), DefaultFeed))
	}
	return c
}

// ask reads the feed's version and records it with the time; a failure is
// recorded too, so a feed that is down is asked again tomorrow, not on every
// command.
func (c *Check) ask(ctx context.Context, feed string) {
	latest, err := fetch(ctx, feed)
	_ = c.change(func(s *state) {
		if s.CheckedAt = time.Now(); err == nil {
			s.Latest = latest
		}
	})
}

// fetch is the feed's tag_name when it is a plain version.
func fetch(ctx context.Context, feed string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, feed, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("update feed: %s", resp.Status)
	}
	var release struct {
		Tag string `json:"tag_name"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxFeed)).Decode(&release); err != nil {
		return "", err
	}
	if _, ok := parse(release.Tag); !ok {
		return "", fmt.Errorf("update feed: %q is no release version", textsafe.SanitizeLine(release.Tag))
	}
	return release.Tag, nil
}

// Notice is the hint to print now ("" for none): a newer release is known
// and the person was not told in the last day. Telling is recorded first,
// so the notice comes at most once a day.
func (c *Check) Notice() string {
	if c == nil {
		return ""
	}
	var latest string
	err := c.change(func(s *state) {
		if newer(s.Latest, c.current) && stale(s.NotifiedAt) {
			s.NotifiedAt, latest = time.Now(), s.Latest
		}
	})
	if err != nil || latest == "" {
		return ""
	}
	return textsafe.SanitizeLine(fmt.Sprintf("vq %s is out (this is %s); to upgrade: %s",
		strings.TrimPrefix(latest, "v"), strings.TrimPrefix(c.current, "v"), c.upgrade))
}

// stale is true a day after t, or when t is ahead of the clock (a clock set
// back, a broken file), so no time written once silences vq for good.
func stale(t time.Time) bool {
	since := time.Since(t)
	return since >= interval || since < 0
}

func (c *Check) load() state {
	var s state
	if b, err := privatefile.Read(c.path, maxState); err == nil {
		_ = json.Unmarshal(b, &s) // a broken file is a check never made
	}
	return s
}

// change rewrites the state under the lock beside it: the background
// check and the notice may both write it.
func (c *Check) change(edit func(*state)) error {
	return privatefile.Update(c.path, func() error {
		s := c.load()
		before := s
		if edit(&s); s == before {
			return nil
		}
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		return privatefile.Write(c.path, b)
	})
}

// parse reads a plain MAJOR.MINOR.PATCH, with or without a leading v.
func parse(s string) ([3]int, bool) {
	var v [3]int
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if len(parts) != 3 || err != nil || len(p) > 9 || p != strconv.Itoa(n) || n < 0 {
			return v, false // a sign, a leading zero, a prerelease, not a number
		}
		v[i] = n
	}
	return v, len(parts) == 3
}

// newer is true when latest is a later release than current.
func newer(latest, current string) bool {
	l, ok := parse(latest)
	c, cok := parse(current)
	return ok && cok && slices.Compare(l[:], c[:]) > 0
}

// Upgrade is the command that upgrades vq as it was installed, read from
// where the executable is, as gh does.
func Upgrade(exe string, goInstall bool) string {
	path := strings.ReplaceAll(exe, `\`, "/") // Windows paths read on any system
	lower := strings.ToLower(path)
	switch {
	case strings.Contains(lower, "/cellar/") || strings.Contains(lower, "/homebrew/") || strings.Contains(lower, "/linuxbrew/"):
		return "brew upgrade vq"
	case strings.Contains(lower, "/scoop/"):
		return "scoop update vq"
	case strings.Contains(lower, "/winget/"):
		return "winget upgrade VisualQ.vq"
	case goInstall:
		return "go install github.com/visualq/vq@latest"
	case path == "/usr/bin/vq":
		return "install the .deb, .rpm or .apk of " + releases
	case path == "/usr/local/bin/vq" && inContainer():
		return "pull the image ghcr.io/visualq/vq:1 again"
	case strings.HasSuffix(path, "/.local/bin/vq"):
		return "run scripts/install.sh again (see " + releases + ")"
	}
	return "download it from " + releases
}

func inContainer() bool {
	for _, f := range []string{"/.dockerenv", "/run/.containerenv"} {
		if _, err := os.Stat(f); err == nil {
			return true
		}
	}
	return false
}
