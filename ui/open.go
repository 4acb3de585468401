package ui

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"

	"github.com/visualq/vq/internal/textsafe"
)

// OpenURL starts $BROWSER, else the desktop's URL opener, without waiting.
// Only http(s) links are opened: they come from a server.
func OpenURL(url string) error { return openWith(os.Getenv)(url) }

// openWith reads getenv. $BROWSER lists commands (colon-separated) given the link for %s or last
// (the xdg-utils convention), run without a shell: the link is server text.
func openWith(getenv func(string) string) func(string) error {
	return func(url string) error {
		if _, ok := textsafe.WebURL(url); !ok {
			return fmt.Errorf("not an http(s) link: %q", url)
		}
		var errs []error
		for _, entry := range strings.Split(getenv("BROWSER"), ":") {
			argv := strings.Fields(entry)
			if len(argv) == 0 {
				continue
			}
			if i := slices.IndexFunc(argv, func(a string) bool { return strings.Contains(a, "%s") }); i >= 0 {
				argv[i] = strings.ReplaceAll(argv[i], "%s", url)
			} else {
				argv = append(argv, url)
			}
			err := startOpener(exec.Command(argv[0], argv[1:]...))
			if err == nil {
				return nil
			}
			errs = append(errs, err)
		}
		if len(errs) > 0 {
			return errors.Join(errs...)
		}
		if runtime.GOOS != "darwin" && runtime.GOOS != "windows" && getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
			// xdg-open would start and fail unseen: there is no desktop.
			return errors.New("no browser: no display (DISPLAY, WAYLAND_DISPLAY) and no BROWSER")
		}
		return startOpener(desktopOpener(url))
	}
}

func startOpener(c *exec.Cmd) error {
	if err := c.Start(); err != nil {
		return err
	}
	go c.Wait() //nolint:errcheck // reap the opener; its status says nothing about the page
	return nil
}

func desktopOpener(url string) *exec.Cmd {
	switch runtime.GOOS {
	case "darwin":
		return exec.Command("open", url)
	case "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	}
	return exec.Command("xdg-open", url)
}
