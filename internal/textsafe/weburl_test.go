package textsafe

import "testing"

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
