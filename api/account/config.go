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

// Config is the settings file under the user config directory: one entry
// per server, the active one, and defaults for every server. Flags and
// environment variables override every field.
type Config struct {
	// Active is the base URL of the server calls go to when no flag or
	// environment variable names one.
	Active string `json:"active,omitempty"`
	// Servers are keyed by base URL: the normalised one for entries vq
	// auth login writes, a migrated file's own spelling (the keyring
	// account of its key) otherwise. Entries are matched normalised.
	Servers map[string]Server `json:"servers,omitempty"`
	// Project, Environment, Transport and Endpoint apply to every server
	// whose entry sets none of its own.
	Project     string `json:"project,omitempty"`
	Environment string `json:"environment,omitempty"`
	Transport   string `json:"transport,omitempty"`
	Endpoint    string `json:"endpoint,omitempty"`
	// BaseURL is the one server of a file written before vq kept an entry
	// per server; LoadConfig moves it, its key and its settings into
	// Servers. An APIKey left here came without a base URL: it was stored
	// for no server, so it is sent to none, and kept as the user wrote it.
	BaseURL string `json:"baseUrl,omitempty"`
	APIKey  string `json:"apiKey,omitempty"`
}

// Server is one server's entry.
type Server struct {
	// Name lets --profile, VQ_PROFILE and vq auth switch pick the entry.
	Name        string `json:"name,omitempty"`
	Project     string `json:"project,omitempty"`
	Environment string `json:"environment,omitempty"`
	Transport   string `json:"transport,omitempty"`
	Endpoint    string `json:"endpoint,omitempty"`
	// APIKey is stored here only when no OS keyring is available.
	APIKey string `json:"apiKey,omitempty"`
}

// DefaultConfigPath is $XDG_CONFIG_HOME/vq/config.json or the OS equivalent.
func DefaultConfigPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no user config directory: %w", err)
	}
	return filepath.Join(dir, "vq", "config.json"), nil
}

// LoadConfig reads the config file; a missing file is an empty config. A
// file of the single-server shape comes back as one entry, the active one.
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

// Find is the entry for baseURL, compared normalised, with the key it is
// stored under.
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

// Pick is the entry a --profile, VQ_PROFILE or vq auth switch names: by
// name, else by base URL.
func (c Config) Pick(ref string) (key string, s Server, found bool) {
	if key, s, found = c.Named(ref); found {
		return key, s, found
	}
	return c.Find(ref)
}

func (c Config) BaseURLs() []string {
	return slices.Sorted(maps.Keys(c.Servers))
}

// NormalizeBaseURL is the form a server's entry is kept under: scheme and
// host lower case, no default port, no trailing slash, so that one server
// spelt two ways has one entry. A string that is no URL is only trimmed.
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

// MaxFileSize bounds each of vq's own files (the config, the token
// file): a config holds a few hundred bytes per server, so a larger file
// is none of vq's, and refusing it keeps a hostile one (VQ_CONFIG=/dev/zero,
// a 300 MB file) from costing more than this.
const MaxFileSize = 1 << 20

// readJSONFile reads one of vq's own JSON files into v. A missing or empty
// file (or /dev/null) holds no settings and leaves v as it was; one that
// is not a regular file, is larger than MaxFileSize or is not JSON is
// ErrUnreadableFile, naming it.
// what names the file in that error ("config file").
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

// ErrUnreadableFile is one of vq's own files that cannot be used: not
// valid JSON, not a regular file, or too large. The error names the file,
// and only the commands that need it fail.
var ErrUnreadableFile = errors.New("one of vq's files cannot be used")

// unusableFileError is an ErrUnreadableFile that says why.
type unusableFileError struct{ error }

func (unusableFileError) Is(target error) bool { return target == ErrUnreadableFile }

func (e unusableFileError) Unwrap() error { return e.error }

// ConfigWarnings say what is wrong with the config file at path and the
// directories it is kept in (path's, and a symbolic link's target's) when
// another user may change them: whoever can write the file, or replace it,
// can change where the key is sent. They are nil when all is well.
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

// othersMayChange is the warning for a file or directory another user may
// write, or owns, "" for none. A directory with the sticky bit (/tmp) lets
// no one else replace what is in it; root, which can do anything anyway,
// may own it (a system-wide /etc/vq).
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

// writeJSONFile writes v as one of vq's own files: indented, private and
// atomic (privatefile.Write).
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return privatefile.Write(path, append(b, '\n'))
}
