package textsafe

import (
	"net/url"
	"strings"
)

// WebURL reads a server-sent link fit to open: absolute http(s) with a host and
// no user information ("https://github.com@evil.example/" reads as another
// host); false for file:, javascript: or option-like links.
func WebURL(link string) (*url.URL, bool) {
	u, err := url.Parse(link) // the scheme comes back lower-cased
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, false
	}
	return u, true
}

// SameOrigin reports whether two URLs share scheme, host and port (default
// per scheme): the one rule of which redirects vq follows.
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && portOf(a) == portOf(b)
}

// portOf is a URL's port, its scheme's when it names none.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}
