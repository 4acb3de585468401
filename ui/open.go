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

// OpenURL starts $BROWSER, else the desktop's URL opener (open, xdg-open
// where there is a display, or the Windows URL handler), without waiting
// for it. Only http(s) links are opened (textsafe.WebURL): the links vq
// opens (diff images, OAuth sign-in pages) come from a server.
func OpenURL(url string) error { return openWith(os.Getenv)(url) }

// openWith is OpenURL reading the environment through getenv. $BROWSER is
// a colon-separated list of commands, tried in turn, each given the link
// in place of %s or as its last argument (the convention of xdg-utils and
// Python's webbrowser). The commands run without a shell: the link is
// server text.
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

// startOpener runs an opener without waiting for it.
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
