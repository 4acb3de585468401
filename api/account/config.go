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
	if err := readJSONFile(path, &c); err != nil {
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

// SaveConfig writes the config file with mode 0600 in a 0700 directory,
// atomically: a crash leaves the old file or the new one, never half of one.
func SaveConfig(path string, c Config) error {
	return writeJSONFile(path, c)
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

// BaseURLs are the servers with an entry, sorted.
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

// readJSONFile reads one of vq's own JSON files into v. A missing or empty
// file (or /dev/null) holds no settings and leaves v as it was.
func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(bytes.TrimSpace(b)) == 0) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s %w: %v", path, ErrUnreadableFile, err)
	}
	return nil
}

// ErrUnreadableFile is one of vq's own files that is not valid JSON: the
// error names the file, and only the commands that need it fail.
var ErrUnreadableFile = errors.New("is not valid JSON")

// ConfigDirWarning says what is wrong with the directory of vq's files
// (path's, or its symlink's target) when others may write it: they could
// replace the config and send the key elsewhere. "" when all is well.
func ConfigDirWarning(path string) string {
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	if err != nil || runtime.GOOS == "windows" {
		return ""
	}
	if mode := info.Mode().Perm(); mode&0o022 != 0 {
		return fmt.Sprintf("%s is writable by others (mode %04o): anyone who can write it can change where your key is sent; run chmod 700 %s", dir, mode, dir)
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
