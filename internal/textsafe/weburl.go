package textsafe

import (
	"net/url"
	"strings"
)

// WebURL reads a server-sent link as one fit to open or click: an
// absolute http or https URL with a host and without user information,
// which can make a link read as another host
// ("https://github.com@evil.example/"). false for anything else: a
// file:, javascript: or option-like link does other work than showing a
// page.
func WebURL(link string) (*url.URL, bool) {
	u, err := url.Parse(link) // the scheme comes back lower-cased
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return nil, false
	}
	return u, true
}

// SameOrigin reports whether two URLs share one origin: scheme, host and
// port, a missing port read as the scheme's. It is the one rule of where
// vq follows a server: the redirects of its calls and of the images it
// fetches, and those of a headless sign-in, stay on the origin they
// started from.
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
