package account

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/zalando/go-keyring"
	"golang.org/x/oauth2"
)

// OAuthToken is what vq auth login --oauth keeps: the tokens, and what it
// takes to refresh them without another sign-in.
type OAuthToken struct {
	// Issuer is the authorization server; tokens are stored per issuer.
	Issuer string `json:"issuer"`
	// Resource is the MCP endpoint the token was obtained for.
	Resource     string    `json:"resource"`
	ClientID     string    `json:"clientId"`
	ClientSecret string    `json:"clientSecret,omitempty"`
	TokenURL     string    `json:"tokenUrl"`
	AuthStyle    int       `json:"authStyle,omitempty"`
	AccessToken  string    `json:"accessToken,omitempty"`
	RefreshToken string    `json:"refreshToken,omitempty"`
	TokenType    string    `json:"tokenType,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// Scopes are those granted; a sign-in again asks for them too, so
	// that a step-up keeps what was granted before.
	Scopes []string `json:"scopes,omitempty"`
	// ClientMetadataURL is the Client ID Metadata Document the sign-in
	// offered (--client-metadata-url), offered again by the sign-ins after.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
}

// oauthSecrets are the fields that go to the keyring when one answers; the
// file then keeps the rest, so tokens can still be found by resource.
type oauthSecrets struct {
	ClientSecret string `json:"clientSecret,omitempty"`
	AccessToken  string `json:"accessToken,omitempty"`
	RefreshToken string `json:"refreshToken,omitempty"`
}

// oauthFile keys each token by issuer and resource, and its keyring
// account is that key: two servers signing in at one issuer keep a token
// each. A file written before holds keys that are the issuer alone.
type oauthFile struct {
	Tokens map[string]OAuthToken `json:"tokens"`
}

// key is where t is kept: the key of the token stored for the same issuer
// and resource, else a new one.
func (f oauthFile) key(t OAuthToken) string {
	for k, old := range f.Tokens {
		if old.Issuer == t.Issuer && old.Resource == t.Resource {
			return k
		}
	}
	return t.Issuer + " " + t.Resource
}

const oauthKeyringService = "vq-oauth"

// OAuthPath is the token file, beside the config file and private like it.
func (s CredentialStore) OAuthPath() string {
	return filepath.Join(filepath.Dir(s.ConfigPath), "oauth.json")
}

func (s CredentialStore) loadOAuth() (oauthFile, error) {
	var f oauthFile
	err := readJSONFile("token file", s.OAuthPath(), &f)
	if f.Tokens == nil {
		f.Tokens = map[string]OAuthToken{}
	}
	return f, err
}

// SaveOAuth stores t under its issuer and resource, secrets in the keyring when one
// answers, else all of it in the 0600 token file; it says where.
func (s CredentialStore) SaveOAuth(t OAuthToken) (where string, err error) {
	return locked(s.OAuthPath(), func() (string, error) { return s.saveOAuth(t) })
}

func (s CredentialStore) saveOAuth(t OAuthToken) (string, error) {
	f, err := s.loadOAuth()
	if err != nil {
		return "", err
	}
	where := SourceConfig + " " + s.OAuthPath()
	key := f.key(t)
	stored := t
	if s.UseKeyring {
		secrets, _ := json.Marshal(oauthSecrets{ClientSecret: t.ClientSecret, AccessToken: t.AccessToken, RefreshToken: t.RefreshToken})
		if _, err := s.keyring(context.Background(), func() (string, error) { return "", keyring.Set(oauthKeyringService, key, string(secrets)) }); err == nil {
			stored.ClientSecret, stored.AccessToken, stored.RefreshToken = "", "", ""
			where = SourceKeyring
		}
	}
	f.Tokens[key] = stored
	return where, writeJSONFile(s.OAuthPath(), f)
}

// LookupOAuth finds the token stored for an MCP endpoint. Its secrets in a
// keyring that has not answered when ctx ends fail the lookup with ctx's
// error, as Lookup's do.
func (s CredentialStore) LookupOAuth(ctx context.Context, resource string) (OAuthToken, bool, error) {
	f, err := s.loadOAuth()
	if err != nil {
		return OAuthToken{}, false, err
	}
	for key, t := range f.Tokens {
		if t.Resource != resource {
			continue
		}
		if t.AccessToken == "" && t.RefreshToken == "" && s.UseKeyring {
			get := keyringGet // read here: the lookup may outlive its caller
			raw, err := s.keyring(ctx, func() (string, error) { return get(oauthKeyringService, key) })
			if ctxErr := ctx.Err(); ctxErr != nil {
				return OAuthToken{}, false, ctxErr
			}
			var sec oauthSecrets
			if err == nil && json.Unmarshal([]byte(raw), &sec) == nil {
				t.ClientSecret, t.AccessToken, t.RefreshToken = sec.ClientSecret, sec.AccessToken, sec.RefreshToken
			}
		}
		return t, t.AccessToken != "" || t.RefreshToken != "", nil
	}
	return OAuthToken{}, false, nil
}

// DeleteOAuth removes every token stored for an MCP endpoint and reports
// the issuers it removed.
func (s CredentialStore) DeleteOAuth(resource string) (issuers []string, err error) {
	return locked(s.OAuthPath(), func() ([]string, error) { return s.deleteOAuth(resource) })
}

func (s CredentialStore) deleteOAuth(resource string) ([]string, error) {
	f, err := s.loadOAuth()
	if err != nil {
		return nil, err
	}
	var removed []string
	for key, t := range f.Tokens {
		if t.Resource != resource {
			continue
		}
		if s.UseKeyring {
			_, _ = s.keyring(context.Background(), func() (string, error) { return "", keyring.Delete(oauthKeyringService, key) })
		}
		delete(f.Tokens, key)
		removed = append(removed, t.Issuer)
	}
	if len(removed) == 0 {
		return nil, nil
	}
	return removed, writeJSONFile(s.OAuthPath(), f)
}

// oauthTokenSource yields t's access token, refreshing it at the issuer
// when it has expired and storing the new tokens, so the next vq process
// starts from them.
func (s CredentialStore) oauthTokenSource(t OAuthToken, hc *http.Client) oauth2.TokenSource {
	cfg := &oauth2.Config{
		ClientID:     t.ClientID,
		ClientSecret: t.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: t.TokenURL, AuthStyle: oauth2.AuthStyle(t.AuthStyle)},
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, hc)
	return &storingTokenSource{store: s, rec: t, src: cfg.TokenSource(ctx, t.token())}
}

func (t OAuthToken) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, TokenType: t.TokenType, Expiry: t.Expiry}
}

func (t OAuthToken) with(tok *oauth2.Token) OAuthToken {
	t.AccessToken, t.TokenType, t.Expiry = tok.AccessToken, tok.TokenType, tok.Expiry
	if tok.RefreshToken != "" {
		t.RefreshToken = tok.RefreshToken
	}
	return t
}

type storingTokenSource struct {
	store CredentialStore
	src   oauth2.TokenSource
	mu    sync.Mutex
	rec   OAuthToken
}

func (s *storingTokenSource) Token() (*oauth2.Token, error) {
	tok, err := s.src.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok.AccessToken != s.rec.AccessToken {
		s.rec = s.rec.with(tok)
		// A failed save costs only a refresh next time; the call goes on.
		_, _ = s.store.SaveOAuth(s.rec)
	}
	return tok, nil
}
