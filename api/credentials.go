package api

import (
	"context"
	"errors"
	"time"

	"github.com/zalando/go-keyring"
)

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

// Lookup finds the stored key for baseURL and says where it was. A keyring
// that has not answered when ctx ends (a locked one waiting for its unlock
// prompt) fails the lookup with ctx's error; one that does not answer
// within KeyringTimeout is passed over for the config file.
func (s CredentialStore) Lookup(ctx context.Context, baseURL string) (key, source string, err error) {
	if s.UseKeyring {
		k, err := s.keyring(ctx, func() (string, error) { return keyringGet(keyringService, baseURL) })
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", "", ctxErr
		}
		if err == nil && k != "" {
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
		if _, err := s.keyring(context.Background(), func() (string, error) { return "", keyring.Set(keyringService, baseURL, key) }); err == nil {
			c.APIKey = ""
			source = SourceKeyring
		}
	}
	return source, SaveConfig(s.ConfigPath, c)
}

// Delete removes the key for baseURL from the keyring and the config file.
func (s CredentialStore) Delete(baseURL string) error {
	if s.UseKeyring {
		_, _ = s.keyring(context.Background(), func() (string, error) { return "", keyring.Delete(keyringService, baseURL) })
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

// keyringGet reads the OS keyring; a test stands a locked keyring in.
var keyringGet = keyring.Get

// keyring runs one keyring call for at most KeyringTimeout, and not past
// ctx. The call goes on in its goroutine when either ends first: the OS
// offers no way to cancel it, and its answer is dropped.
func (s CredentialStore) keyring(ctx context.Context, op func() (string, error)) (string, error) {
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
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	case <-timer.C:
		return "", errKeyringTimeout
	}
}
