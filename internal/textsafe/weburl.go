package textsafe

import "net/url"

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
