package textsafe

import (
	"net/url"
	"testing"
)

func TestWebURL(t *testing.T) {
	t.Parallel()
	for link, ok := range map[string]bool{
		"https://visualq.example/runs/r1/diff.png": true,
		"HTTP://visualq.example/":                  true,
		"https://github.com@evil.example/":         false,
		"https://user:pw@visualq.example/":         false,
		"javascript:alert(1)":                      false,
		"file:///etc/passwd":                       false,
		"--help":                                   false,
		"https:///no-host":                         false,
		"/relative/path":                           false,
	} {
		if _, got := WebURL(link); got != ok {
			t.Errorf("WebURL(%q) = %v, want %v", link, got, ok)
		}
	}
}

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"https://visualq.example/runs/r1/diff.png", "https://VisualQ.example:443/api/mcp", true},
		{"http://127.0.0.1/a.png", "http://127.0.0.1:80", true},
		{"http://127.0.0.1:8787/a.png", "http://127.0.0.1:8788/a.png", false},
		{"https://visualq.example/", "http://visualq.example/", false},
		{"https://visualq.example:80/", "http://visualq.example/", false},
		{"http://localhost:8787/", "http://127.0.0.1:8787/", false},
	} {
		a, _ := url.Parse(c.a)
		b, _ := url.Parse(c.b)
		if got := SameOrigin(a, b); got != c.same {
			t.Errorf("SameOrigin(%s, %s) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
