package account

import (
	"context"
	"errors"
	"time"

	"github.com/visualq/vq/internal/privatefile"
	"github.com/zalando/go-keyring"
)

// Where a credential came from, as vq auth status reports it.
const (
	SourceEnv     = "environment (VQ_API_KEY)"
	SourceKeyring = "OS keyring"
	SourceConfig  = "config file"
)

const keyringService = "vq"

// CredentialStore keeps one entry per server in the config file, and each
// server's API key in the OS keyring when one answers, else in its entry.
type CredentialStore struct {
	ConfigPath     string
	UseKeyring     bool          // false where no keyring should be touched (VQ_NO_KEYRING).
	KeyringTimeout time.Duration // KeyringTimeout bounds each keyring call (zero: 3s): a locked one must not hang vq.
}

func (s CredentialStore) Load() (Config, error) { return LoadConfig(s.ConfigPath) }

// account is the keyring account of baseURL's key: its entry's key, else baseURL.
func account(c Config, baseURL string) (string, Server, bool) {
	key, entry, found := c.Find(baseURL)
	if !found {
		return baseURL, entry, false
	}
	return key, entry, true
}

// Lookup finds baseURL's key (no other server's) and says where. A keyring
// silent when ctx ends fails with ctx's error; one silent past KeyringTimeout
// is passed over for the config file.
func (s CredentialStore) Lookup(ctx context.Context, baseURL string) (key, source string, err error) {
	c, err := s.Load()
	if err != nil {
		return "", "", err
	}
	acct, entry, _ := account(c, baseURL)
	if s.UseKeyring {
		get := keyringGet // read here: the lookup may outlive its caller
		k, err := s.keyring(ctx, func() (string, error) { return get(keyringService, acct) })
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", "", ctxErr
		}
		if err == nil && k != "" {
			return k, SourceKeyring, nil
		}
	}
	if entry.APIKey != "" {
		return entry.APIKey, SourceConfig + " " + s.ConfigPath, nil
	}
	return "", "", nil
}

// Save sets entry's fields on baseURL's entry and makes it active; a key goes to
// the keyring when one answers, else the entry, and Save says where ("" if none).
func (s CredentialStore) Save(baseURL string, entry Server, key string) (where string, err error) {
	return locked(s.ConfigPath, func() (string, error) { return s.save(baseURL, entry, key) })
}

// locked runs op holding path's update lock (privatefile.Update).
func locked[T any](path string, op func() (T, error)) (v T, err error) {
	err = privatefile.Update(path, func() error {
		v, err = op()
		return err
	})
	return v, err
}

func (s CredentialStore) save(baseURL string, entry Server, key string) (string, error) {
	c, err := s.Load()
	if err != nil {
		return "", err
	}
	acct, stored, found := account(c, baseURL)
	if !found {
		acct = NormalizeBaseURL(baseURL)
	}
	stored.merge(entry)
	where := ""
	if key != "" {
		stored.APIKey, where = key, SourceConfig+" "+s.ConfigPath
		if s.UseKeyring {
			if _, err := s.keyring(context.Background(), func() (string, error) { return "", keyring.Set(keyringService, acct, key) }); err == nil {
				stored.APIKey, where = "", SourceKeyring
			}
		}
	}
	if c.Servers == nil {
		c.Servers = map[string]Server{}
	}
	c.Servers[acct], c.Active = stored, acct
	return where, writeJSONFile(s.ConfigPath, c)
}

// merge sets the fields that from sets; the key is Save's.
func (e *Server) merge(from Server) {
	for dst, src := range map[*string]string{&e.Name: from.Name, &e.Project: from.Project, &e.Environment: from.Environment, &e.Transport: from.Transport, &e.Endpoint: from.Endpoint} {
		if src != "" {
			*dst = src
		}
	}
}

// Delete removes baseURL's entry and key and reports whether any was stored;
// the one server left becomes active when none is.
func (s CredentialStore) Delete(baseURL string) (removed bool, err error) {
	return locked(s.ConfigPath, func() (bool, error) { return s.delete(baseURL) })
}

func (s CredentialStore) delete(baseURL string) (bool, error) {
	c, err := s.Load()
	if err != nil {
		return false, err
	}
	acct, _, found := account(c, baseURL)
	removed := found
	if s.UseKeyring {
		if _, err := s.keyring(context.Background(), func() (string, error) { return "", keyring.Delete(keyringService, acct) }); err == nil {
			removed = true
		}
	}
	if !found {
		return removed, nil
	}
	delete(c.Servers, acct)
	if NormalizeBaseURL(c.Active) == NormalizeBaseURL(acct) {
		c.Active = ""
	}
	if c.Active == "" && len(c.Servers) == 1 {
		// The one server left is the only one calls could mean.
		c.Active = c.BaseURLs()[0]
	}
	return removed, writeJSONFile(s.ConfigPath, c)
}

// Activate makes the entry ref names (name or base URL) active and returns its base URL.
func (s CredentialStore) Activate(ref string) (baseURL string, found bool, err error) {
	err = privatefile.Update(s.ConfigPath, func() error {
		c, err := s.Load()
		if err != nil {
			return err
		}
		if baseURL, _, found = c.Pick(ref); !found {
			return nil
		}
		c.Active = baseURL
		return writeJSONFile(s.ConfigPath, c)
	})
	return baseURL, found, err
}

var errKeyringTimeout = errors.New("the OS keyring did not answer in time")

// keyringGet reads the OS keyring; a test stands a locked keyring in.
var keyringGet = keyring.Get

// keyring runs one call within KeyringTimeout and ctx; one that outlives them
// goes on in its goroutine (the OS cannot cancel it) and its answer is dropped.
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
