package account

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/visualq/vq/internal/testkit"
)

func TestNormalizeBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://visualq.example.com":          "https://visualq.example.com",
		"HTTPS://VisualQ.Example.com:443/":     "https://visualq.example.com",
		"http://127.0.0.1:80//":                "http://127.0.0.1",
		"http://127.0.0.1:8787":                "http://127.0.0.1:8787",
		"https://[::1]:443/vq/":                "https://[::1]/vq",
		"https://visualq.example.com/Tenant/A": "https://visualq.example.com/Tenant/A",
	} {
		if got := NormalizeBaseURL(in); got != want {
			t.Errorf("NormalizeBaseURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// A file of the single-server shape reads as that server's entry, the
// active one, found however its URL is spelt.
func TestLoadConfigMigratesTheSingleServerShape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	old := `{"baseUrl": "https://VisualQ.example.com", "apiKey": "vqs_old", "project": "shop-web", "environment": "staging", "transport": "mcp", "endpoint": "https://visualq.example.com/api/mcp"}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Server{Project: "shop-web", Environment: "staging", Transport: "mcp", Endpoint: "https://visualq.example.com/api/mcp", APIKey: "vqs_old"}
	key, entry, found := c.Find("https://visualq.example.com/")
	if !found || entry != want || key != "https://VisualQ.example.com" || c.Active != key || c.BaseURL != "" || c.APIKey != "" || c.Project != "" {
		t.Errorf("migrated to %+v; entry %q %+v %v", c, key, entry, found)
	}
}

// A key in a file without a base URL was stored for no server: it is sent
// to none, and kept in the file as written.
func TestAKeyWithoutAServerIsSentToNone(t *testing.T) {
	ctx := testkit.Bound(t)
	s := CredentialStore{ConfigPath: filepath.Join(t.TempDir(), "config.json")}
	if err := os.WriteFile(s.ConfigPath, []byte(`{"apiKey": "vqs_nowhere", "project": "shop-web"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if key, _, err := s.Lookup(ctx, "https://visualq.example.com"); key != "" || err != nil {
		t.Errorf("Lookup = %q, %v; want no key", key, err)
	}
	if _, err := s.Save("https://other.example.com", Server{Name: "other"}, "vqs_other"); err != nil {
		t.Fatal(err)
	}
	c, err := s.Load()
	if err != nil || c.APIKey != "vqs_nowhere" || c.Project != "shop-web" || c.Servers["https://other.example.com"].APIKey != "vqs_other" {
		t.Errorf("after a login: %+v, %v", c, err)
	}
}

// Two servers signing in at one issuer keep a token each; a token stored
// before, under the issuer alone, is still found and replaced in place.
func TestOAuthTokensAreKeptPerServer(t *testing.T) {
	ctx := testkit.Bound(t)
	s := CredentialStore{ConfigPath: filepath.Join(t.TempDir(), "config.json")}
	legacy := `{"tokens":{"https://issuer.example":{"issuer":"https://issuer.example","resource":"https://a.example/api/mcp","clientId":"c","tokenUrl":"https://issuer.example/token","accessToken":"at_a"}}}`
	if err := os.WriteFile(s.OAuthPath(), []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	b := OAuthToken{Issuer: "https://issuer.example", Resource: "https://b.example/api/mcp", ClientID: "c", AccessToken: "at_b"}
	if _, err := s.SaveOAuth(b); err != nil {
		t.Fatal(err)
	}
	for resource, want := range map[string]string{"https://a.example/api/mcp": "at_a", "https://b.example/api/mcp": "at_b"} {
		if tok, found, err := s.LookupOAuth(ctx, resource); !found || err != nil || tok.AccessToken != want {
			t.Errorf("%s: %q %v %v, want %q", resource, tok.AccessToken, found, err, want)
		}
	}
	a, _, _ := s.LookupOAuth(ctx, "https://a.example/api/mcp")
	a.AccessToken = "at_a2"
	if _, err := s.SaveOAuth(a); err != nil {
		t.Fatal(err)
	}
	f, _ := s.loadOAuth()
	if len(f.Tokens) != 2 || f.Tokens["https://issuer.example"].AccessToken != "at_a2" {
		t.Errorf("tokens after a refresh: %+v", f.Tokens)
	}
}
