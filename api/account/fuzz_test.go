package account

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadConfig: any bytes in the config file load or fail with
// ErrUnreadableFile, never panic, and a loaded config answers every
// question asked of it.
func FuzzLoadConfig(f *testing.F) {
	for _, seed := range []string{
		`{"active":"http://127.0.0.1:9","servers":{"http://127.0.0.1:9":{"name":"a","apiKey":"k"}}}`,
		`{"baseUrl":"HTTP://LOCALHOST:9/","apiKey":"k","project":"p"}`,
		`{"servers":{"":{},"%zz":{"name":""}}}`,
		`{"servers": {"x": `,
		"\xff\xfe",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "config.json")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(path)
		if err != nil {
			if !errors.Is(err, ErrUnreadableFile) {
				t.Fatalf("LoadConfig: %v, not ErrUnreadableFile", err)
			}
			return
		}
		for _, base := range append(c.BaseURLs(), c.Active, "http://127.0.0.1:9") {
			c.Find(base)
			c.Pick(base)
		}
	})
}
