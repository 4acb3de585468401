package ui

import (
	"fmt"
	"net/url"
	"os/exec"
	"runtime"
)

// checkWebURL refuses links that are not http(s): the link is server text,
// and an opener given file: or an option-like argument would do other work.
func checkWebURL(link string) error {
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("not an http(s) link: %q", link)
	}
	return nil
}

// OpenURL starts the desktop's URL opener (open, xdg-open, or the Windows
// URL handler) without waiting for it. Only http(s) links are opened: the
// links vq opens (diff images, OAuth sign-in pages) come from a server.
func OpenURL(url string) error {
	if err := checkWebURL(url); err != nil {
		return err
	}
	var c *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		c = exec.Command("open", url)
	case "windows":
		c = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		c = exec.Command("xdg-open", url)
	}
	if err := c.Start(); err != nil {
		return err
	}
	go c.Wait() //nolint:errcheck // reap the opener; its status says nothing about the page
	return nil
}
