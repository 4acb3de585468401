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

// OAuthToken is what vq auth login --oauth keeps: the tokens and how to refresh them.
type OAuthToken struct {
	Issuer       string    `json:"issuer"`   // the authorization server
	Resource     string    `json:"resource"` // the MCP endpoint
	ClientID     string    `json:"clientId"`
	ClientSecret string    `json:"clientSecret,omitempty"`
	TokenURL     string    `json:"tokenUrl"`
	AuthStyle    int       `json:"authStyle,omitempty"`
	AccessToken  string    `json:"accessToken,omitempty"`
	RefreshToken string    `json:"refreshToken,omitempty"`
	TokenType    string    `json:"tokenType,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// Scopes granted and the Client ID Metadata Document offered, both asked
	// again by a sign-in again, so a step-up keeps what was granted.
	Scopes            []string `json:"scopes,omitempty"`
	ClientMetadataURL string   `json:"clientMetadataUrl,omitempty"`
}

// oauthSecrets go to the keyring when one answers; the file keeps the rest.
type oauthSecrets struct {
	ClientSecret string `json:"clientSecret,omitempty"`
	AccessToken  string `json:"accessToken,omitempty"`
	RefreshToken string `json:"refreshToken,omitempty"`
}

// oauthFile keys each token (and its keyring account) by issuer and resource,
// so two servers at one issuer keep one each; older files key by issuer alone.
type oauthFile struct {
	Tokens map[string]OAuthToken `json:"tokens"`
}

// key is the key of the token stored for t's issuer and resource, else a new one.
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

// SaveOAuth stores t, secrets in the keyring when one answers, else all in the
// 0600 token file; it says where.
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

// LookupOAuth finds the token stored for an MCP endpoint; a keyring silent when
// ctx ends fails it, as in Lookup.
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

// DeleteOAuth removes an MCP endpoint's tokens and reports their issuers.
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

// oauthTokenSource yields t's access token, refreshed when expired and stored
// for the next vq process.
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
