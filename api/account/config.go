package account

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/visualq/vq/internal/privatefile"
)

// Config is the settings file: an entry per server, the active one, and
// defaults; flags and variables override every field.
type Config struct {
	Active string `json:"active,omitempty"` // the base URL used when nothing names one
	// Servers are keyed by base URL (a migrated file's own spelling, the
	// keyring account of its key); entries are matched normalised.
	Servers map[string]Server `json:"servers,omitempty"`
	// Defaults for every server whose entry sets none.
	Project     string `json:"project,omitempty"`
	Environment string `json:"environment,omitempty"`
	Transport   string `json:"transport,omitempty"`
	Endpoint    string `json:"endpoint,omitempty"`
	// BaseURL is a single-server file's server, which LoadConfig moves into
	// Servers. An APIKey left here had no base URL: it is sent to none.
	BaseURL string `json:"baseUrl,omitempty"`
	APIKey  string `json:"apiKey,omitempty"`
}

// Server is one server's entry.
type Server struct {
	Name        string `json:"name,omitempty"` // picked by --profile, VQ_PROFILE, vq auth switch
	Project     string `json:"project,omitempty"`
	Environment string `json:"environment,omitempty"`
	Transport   string `json:"transport,omitempty"`
	Endpoint    string `json:"endpoint,omitempty"`
	APIKey      string `json:"apiKey,omitempty"` // only when no OS keyring is available
}

// DefaultConfigPath is $XDG_CONFIG_HOME/vq/config.json or the OS equivalent.
func DefaultConfigPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no user config directory: %w", err)
	}
	return filepath.Join(dir, "vq", "config.json"), nil
}

// LoadConfig reads the config file (missing: empty), migrating a single-server one.
func LoadConfig(path string) (Config, error) {
	var c Config
	if err := readJSONFile("config file", path, &c); err != nil {
		return c, err
	}
	c.migrate()
	return c, nil
}

// migrate moves a single-server file's server into Servers.
func (c *Config) migrate() {
	if c.BaseURL == "" {
		return
	}
	if _, _, found := c.Find(c.BaseURL); !found {
		if c.Servers == nil {
			c.Servers = map[string]Server{}
		}
		c.Servers[c.BaseURL] = Server{Project: c.Project, Environment: c.Environment, Transport: c.Transport, Endpoint: c.Endpoint, APIKey: c.APIKey}
		c.Project, c.Environment, c.Transport, c.Endpoint = "", "", "", ""
	}
	if c.Active == "" {
		c.Active = c.BaseURL
	}
	c.BaseURL, c.APIKey = "", ""
}

// Find is the entry for baseURL, compared normalised, with its key.
func (c Config) Find(baseURL string) (key string, s Server, found bool) {
	want := NormalizeBaseURL(baseURL)
	for k, s := range c.Servers {
		if NormalizeBaseURL(k) == want {
			return k, s, true
		}
	}
	return "", Server{}, false
}

// Named is the entry called name.
func (c Config) Named(name string) (key string, s Server, found bool) {
	for k, s := range c.Servers {
		if s.Name == name {
			return k, s, true
		}
	}
	return "", Server{}, false
}

// Pick is the entry a --profile names: by name, else by base URL.
func (c Config) Pick(ref string) (key string, s Server, found bool) {
	if key, s, found = c.Named(ref); found {
		return key, s, found
	}
	return c.Find(ref)
}

func (c Config) BaseURLs() []string {
	return slices.Sorted(maps.Keys(c.Servers))
}

// NormalizeBaseURL is the form an entry is kept under (lower-case scheme and
// host, no default port or trailing slash); a non-URL is only trimmed.
func NormalizeBaseURL(raw string) string {
	raw = strings.TrimRight(raw, "/")
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	if port := u.Port(); (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		u.Host = u.Hostname()
		if strings.Contains(u.Host, ":") {
			u.Host = "[" + u.Host + "]" // an IPv6 literal keeps its brackets
		}
	}
	return u.String()
}

// MaxFileSize bounds each of vq's own files (config, tokens), a few hundred
// bytes a server: a hostile one (VQ_CONFIG=/dev/zero) costs no more than this.
const MaxFileSize = 1 << 20

// readJSONFile reads one of vq's JSON files into v; missing or empty leaves v.
// Not regular, past MaxFileSize or not JSON is ErrUnreadableFile, naming what.
func readJSONFile(what, path string, v any) error {
	b, err := privatefile.Read(path, MaxFileSize)
	if _, refused := errors.AsType[*privatefile.RefusedError](err); refused {
		return unusableFileError{fmt.Errorf("%s %w", what, err)}
	}
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(bytes.TrimSpace(b)) == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return unusableFileError{fmt.Errorf("%s %s is not valid JSON: %v", what, path, err)}
	}
	return nil
}

// ErrUnreadableFile is one of vq's files that is not JSON, not regular, or too
// large; only the commands that need it fail.
var ErrUnreadableFile = errors.New("one of vq's files cannot be used")

// unusableFileError is an ErrUnreadableFile that says why.
type unusableFileError struct{ error }

func (unusableFileError) Is(target error) bool { return target == ErrUnreadableFile }

func (e unusableFileError) Unwrap() error { return e.error }

// ConfigWarnings say when another user may change the config file or its
// directories (path's and a link target's): whoever can replace it can
// change where the key is sent.
func ConfigWarnings(path string) []string {
	if runtime.GOOS == "windows" {
		return nil // ACLs, not modes, guard files there
	}
	var warnings []string
	add := func(w string) {
		if w != "" && !slices.Contains(warnings, w) {
			warnings = append(warnings, w)
		}
	}
	dirs := []string{filepath.Dir(path)}
	if target, err := privatefile.Target(path); err == nil && target != path {
		dirs = append(dirs, filepath.Dir(target))
	}
	for _, dir := range dirs {
		if info, err := os.Stat(dir); err == nil {
			add(othersMayChange(dir, info, "700"))
		}
	}
	if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
		add(othersMayChange(path, info, "600"))
	}
	return warnings
}

// othersMayChange warns of a file or directory another user may write or owns
// ("" for none); the sticky bit protects, and root may own it.
func othersMayChange(path string, info fs.FileInfo, private string) string {
	mode := info.Mode()
	writers := ""
	switch {
	case mode.IsDir() && mode&fs.ModeSticky != 0:
	case mode.Perm()&0o002 != 0:
		writers = "others"
	case mode.Perm()&0o020 != 0:
		writers = "its group"
	}
	if writers != "" {
		return fmt.Sprintf("%s is writable by %s (mode %04o): whoever can write it can change where your key is sent; run chmod %s %s", path, writers, mode.Perm(), private, path)
	}
	if uid, ok := fileOwner(info); ok && uid != os.Geteuid() && uid != 0 {
		return fmt.Sprintf("%s is owned by another user (uid %d): they can change where your key is sent; use a config of your own (VQ_CONFIG) or chown it", path, uid)
	}
	return ""
}

// writeJSONFile writes v indented, private and atomic (privatefile.Write).
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return privatefile.Write(path, append(b, '\n'))
}
