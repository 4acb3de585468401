package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/zalando/go-keyring"
)

// Config is the settings file under the user config directory. Flags and
// environment variables override every field.
type Config struct {
	BaseURL     string `json:"baseUrl,omitempty"`
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

// LoadConfig reads the config file; a missing file is an empty config.
func LoadConfig(path string) (Config, error) {
	var c Config
	err := readJSONFile(path, &c)
	return c, err
}

// SaveConfig writes the config file with mode 0600 in a 0700 directory,
// atomically: a crash leaves the old file or the new one, never half of one.
func SaveConfig(path string, c Config) error {
	return writeJSONFile(path, c)
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
		return fmt.Errorf("%s is not valid JSON: %w", path, err)
	}
	return nil
}

// writeJSONFile writes v as one of vq's own files: indented, private and
// atomic (WriteFileAtomic).
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// WriteFileAtomic writes a private file (0600, directory 0700) through a
// temporary file and a rename.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Where a credential came from, as vq auth status reports it.
const (
	SourceEnv     = "environment (VQ_API_KEY)"
	SourceKeyring = "OS keyring"
	SourceConfig  = "config file"
)

const keyringService = "vq"

// CredentialStore keeps API keys in the OS keyring when one answers, else in
// the config file. Keys are stored per base URL.
type CredentialStore struct {
	ConfigPath string
	// UseKeyring is false where no keyring should be touched (VQ_NO_KEYRING).
	UseKeyring bool
	// KeyringTimeout bounds every keyring call: a locked or absent keyring
	// must never hang vq. Zero means 3s.
	KeyringTimeout time.Duration
}

// Lookup finds the stored key for baseURL and says where it was.
func (s CredentialStore) Lookup(baseURL string) (key, source string, err error) {
	if s.UseKeyring {
		if k, err := s.keyring(func() (string, error) { return keyring.Get(keyringService, baseURL) }); err == nil && k != "" {
			return k, SourceKeyring, nil
		}
	}
	c, err := LoadConfig(s.ConfigPath)
	if err != nil {
		return "", "", err
	}
	if c.APIKey != "" && (c.BaseURL == "" || c.BaseURL == baseURL) {
		return c.APIKey, SourceConfig + " " + s.ConfigPath, nil
	}
	return "", "", nil
}

// Save stores the key for baseURL together with the base URL itself, and
// reports where the key went.
func (s CredentialStore) Save(baseURL, key string) (string, error) {
	c, err := LoadConfig(s.ConfigPath)
	if err != nil {
		return "", err
	}
	c.BaseURL = baseURL
	source := SourceConfig + " " + s.ConfigPath
	c.APIKey = key
	if s.UseKeyring {
		if _, err := s.keyring(func() (string, error) { return "", keyring.Set(keyringService, baseURL, key) }); err == nil {
			c.APIKey = ""
			source = SourceKeyring
		}
	}
	return source, SaveConfig(s.ConfigPath, c)
}

// Delete removes the key for baseURL from the keyring and the config file.
func (s CredentialStore) Delete(baseURL string) error {
	if s.UseKeyring {
		_, _ = s.keyring(func() (string, error) { return "", keyring.Delete(keyringService, baseURL) })
	}
	c, err := LoadConfig(s.ConfigPath)
	if err != nil {
		return err
	}
	// The file keeps one server's key: only that server's logout removes it.
	if c.APIKey == "" || (c.BaseURL != "" && c.BaseURL != baseURL) {
		return nil
	}
	c.APIKey = ""
	return SaveConfig(s.ConfigPath, c)
}

var errKeyringTimeout = errors.New("the OS keyring did not answer in time")

func (s CredentialStore) keyring(op func() (string, error)) (string, error) {
	timeout := s.KeyringTimeout
	if timeout <= 0 {
		timeout = 3 * time.Second
	}
	type result struct {
		v   string
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := op()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-time.After(timeout):
		return "", errKeyringTimeout
	}
}
