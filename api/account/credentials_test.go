package account

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
	"github.com/zalando/go-keyring"
)

// lockedKeyring stands a keyring that never answers, as a locked one
// waiting on its unlock prompt does, in for the OS keyring's lookups until
// the test ends.
func lockedKeyring(t *testing.T) {
	locked := make(chan struct{})
	keyringGet = func(service, user string) (string, error) {
		<-locked
		return "", nil
	}
	t.Cleanup(func() {
		keyringGet = keyring.Get
		close(locked)
	})
}

// A locked keyring holds a lookup no longer than its context: completion's
// short budget holds even when the keyring's own timeout is long.
func TestALockedKeyringHonoursTheContext(t *testing.T) {
	ctx := testkit.Bound(t)
	lockedKeyring(t)
	dir := t.TempDir()
	s := CredentialStore{ConfigPath: filepath.Join(dir, "config.json"), UseKeyring: true, KeyringTimeout: 10 * time.Second}
	if err := writeJSONFile(s.ConfigPath, Config{BaseURL: "http://127.0.0.1:1", APIKey: "vqs_file"}); err != nil {
		t.Fatal(err)
	}
	// Token secrets kept in the keyring: the file has none.
	tokens := `{"tokens":{"http://192.0.2.1:9":{"issuer":"http://192.0.2.1:9","resource":"http://127.0.0.1:1/api/mcp","clientId":"c","tokenUrl":"http://192.0.2.1:9/token"}}}`
	if err := os.WriteFile(s.OAuthPath(), []byte(tokens), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, lookup := range map[string]func(context.Context) error{
		"Lookup": func(ctx context.Context) error {
			_, _, err := s.Lookup(ctx, "http://127.0.0.1:1")
			return err
		},
		"LookupOAuth": func(ctx context.Context) error {
			_, _, err := s.LookupOAuth(ctx, "http://127.0.0.1:1/api/mcp")
			return err
		},
	} {
		ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		start := time.Now()
		err := lookup(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
			t.Errorf("%s: %v after %s, want the context's deadline", name, err, time.Since(start))
		}
	}
}

// A keyring that does not answer within KeyringTimeout is passed over: the
// key in the config file is found.
func TestALockedKeyringTimesOutToTheConfigFile(t *testing.T) {
	ctx := testkit.Bound(t)
	lockedKeyring(t)
	s := CredentialStore{ConfigPath: filepath.Join(t.TempDir(), "config.json"), UseKeyring: true, KeyringTimeout: 50 * time.Millisecond}
	if err := writeJSONFile(s.ConfigPath, Config{BaseURL: "http://127.0.0.1:1", APIKey: "vqs_file"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	key, source, err := s.Lookup(ctx, "http://127.0.0.1:1")
	if key != "vqs_file" || !strings.HasPrefix(source, SourceConfig) || err != nil || time.Since(start) > 5*time.Second {
		t.Errorf("Lookup = %q, %q, %v after %s; want the file's key", key, source, err, time.Since(start))
	}
}

// A keyring that answers keeps the key; the config file then holds none.
func TestTheKeyringKeepsTheKey(t *testing.T) {
	ctx := testkit.Bound(t)
	keyring.MockInit()
	s := CredentialStore{ConfigPath: filepath.Join(t.TempDir(), "config.json"), UseKeyring: true}
	if where, err := s.Save("http://127.0.0.1:1", Server{}, "vqs_kept"); where != SourceKeyring || err != nil {
		t.Fatalf("saved to %q: %v", where, err)
	}
	if c, err := LoadConfig(s.ConfigPath); c.Servers["http://127.0.0.1:1"].APIKey != "" || err != nil {
		t.Errorf("the config file holds key %q (%v)", c.Servers["http://127.0.0.1:1"].APIKey, err)
	}
	key, source, err := s.Lookup(ctx, "http://127.0.0.1:1")
	if key != "vqs_kept" || source != SourceKeyring || err != nil {
		t.Errorf("Lookup = %q, %q, %v", key, source, err)
	}
}

// TestNoKeyringMeansTheConfigFile: with UseKeyring false (VQ_NO_KEYRING) a
// key is saved to and read from the private config file only.
func TestNoKeyringMeansTheConfigFile(t *testing.T) {
	ctx := testkit.Bound(t)
	s := CredentialStore{ConfigPath: filepath.Join(t.TempDir(), "config.json")}
	where, err := s.Save("http://127.0.0.1:1", Server{}, "vqs_stored")
	if err != nil || !strings.HasPrefix(where, SourceConfig) {
		t.Fatalf("saved to %q: %v", where, err)
	}
	key, source, err := s.Lookup(ctx, "http://127.0.0.1:1")
	if key != "vqs_stored" || !strings.HasPrefix(source, SourceConfig) || err != nil {
		t.Errorf("Lookup = %q, %q, %v", key, source, err)
	}
}

// The token file reads as the config file does: empty is no tokens (every
// command with a base URL looks tokens up), broken names the file.
func TestOAuthFileEmptyOrBroken(t *testing.T) {
	ctx := testkit.Bound(t)
	s := CredentialStore{ConfigPath: filepath.Join(t.TempDir(), "config.json")}
	if err := os.WriteFile(s.OAuthPath(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, found, err := s.LookupOAuth(ctx, "http://127.0.0.1:1/api/mcp"); found || err != nil {
		t.Errorf("empty token file: found %v, err %v; want nothing and no error", found, err)
	}
	if err := os.WriteFile(s.OAuthPath(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.LookupOAuth(ctx, "http://127.0.0.1:1/api/mcp"); err == nil || !strings.Contains(err.Error(), s.OAuthPath()) {
		t.Errorf("broken token file: %v, want an error naming %s", err, s.OAuthPath())
	}
}

// A token refresh goes through the client's own HTTP: a token endpoint
// redirecting to another host never receives the refresh token there.
func TestOAuthRefreshRefusesCrossHostRedirects(t *testing.T) {
	var elsewhere atomic.Int32
	other := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	issuer := testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/token", http.StatusTemporaryRedirect)
	}))
	cred := NewCredential(StoredOAuth{
		Token: OAuthToken{Issuer: issuer.URL, TokenURL: issuer.URL + "/token", ClientID: "c", AccessToken: "old", RefreshToken: "vq_rt_secret", Expiry: time.Now().Add(-time.Minute)},
		Store: CredentialStore{ConfigPath: filepath.Join(t.TempDir(), "config.json")},
	}, Target{Endpoint: issuer.URL + "/api/mcp", HTTP: api.New(api.Options{}).HTTPClient()})
	if tok, err := cred.Token(); err == nil || elsewhere.Load() != 0 {
		t.Errorf("token %+v (%v), %d requests at the other host; want no token and none", tok, err, elsewhere.Load())
	}
}
