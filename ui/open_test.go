package ui

import (
	"runtime"
	"strings"
	"testing"
)

// Links come from a server: only http(s) ones reach the desktop's opener,
// never a file, a script or something an opener would take as an option.
func TestOpenURLRefusesAllButWebLinks(t *testing.T) {
	t.Parallel()
	for _, link := range []string{"file:///etc/passwd", "javascript:alert(1)", "-a Calculator", "--help", "http://", "ftp://x.example/f", "/etc/passwd", "https://github.com@evil.example/"} {
		// Refused by the check, not by an opener that happens to be missing.
		if err := OpenURL(link); err == nil || !strings.Contains(err.Error(), "not an http(s) link") {
			t.Errorf("OpenURL(%q) = %v, want the link refused", link, err)
		}
	}
}

// Without a display or a BROWSER there is no browser to start: xdg-open
// would start, fail unseen and leave a sign-in waiting for ever.
func TestOpenURLWithoutADisplaySaysSo(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the desktop's opener needs no display variable")
	}
	err := openWith(func(string) string { return "" })("http://127.0.0.1/authorize")
	if err == nil || !strings.Contains(err.Error(), "no display") {
		t.Errorf("OpenURL without a display = %v, want it said", err)
	}
}
