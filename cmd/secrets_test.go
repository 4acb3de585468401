package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/visualq/vq/sandbox"
)

// vq's directory is made private, and one others may write is warned about:
// whoever can write it can change where the key is sent.
func TestConfigDirectoryIsPrivateAndWarnedAbout(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "fresh", "vq")
	env := map[string]string{"VQ_CONFIG": filepath.Join(dir, "config.json")}
	vqRun{Env: env, Stdin: "vqs_key_1\n"}.run(t, "auth", "login", "--with-token", "--no-verify", "--base-url", "http://127.0.0.1:9")
	info, err := os.Stat(dir)
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("config dir %v mode %v, want 0700", err, info.Mode().Perm())
	}
	os.Chmod(dir, 0o777)
	defer os.Chmod(dir, 0o700)
	_, stderr, _ := runVQ(t, env, "auth", "status")
	if !strings.Contains(stderr, "warning: "+dir+" is writable by others (mode 0777)") {
		t.Errorf("no warning:\n%s", stderr)
	}
}

// Two sign-ins at once, to different servers, both survive.
func TestConcurrentSignInsBothSurvive(t *testing.T) {
	t.Parallel()
	for round := range 5 {
		env := map[string]string{"VQ_CONFIG": filepath.Join(t.TempDir(), "config.json")}
		var wg sync.WaitGroup
		// Loopback ports nobody listens on: --no-verify sends nothing.
		for _, port := range []string{"9", "19"} {
			wg.Go(func() {
				vqRun{Env: env, Stdin: "vqs_key_" + port + "\n"}.run(t, "auth", "login", "--with-token", "--no-verify", "--base-url", "http://127.0.0.1:"+port)
			})
		}
		wg.Wait()
		stdout, _, _ := runVQ(t, env, "auth", "status", "--json")
		if !strings.Contains(stdout, "127.0.0.1:9\"") || !strings.Contains(stdout, "127.0.0.1:19\"") {
			t.Fatalf("round %d: a sign-in was lost:\n%s", round, stdout)
		}
	}
}

// Pasting "URL KEY" on one line at the interactive login's URL prompt
// never shows the key on the screen, and signs in with it under the
// profile name typed at the next prompt.
func TestPastedURLAndKeyNeverEchoTheKey(t *testing.T) {
	t.Parallel()
	ts := startSandbox(t)
	cfg := filepath.Join(t.TempDir(), "config.json")
	p := startTmux(t, 120, 20, map[string]string{"VQ_NO_KEYRING": "1", "VQ_CONFIG": cfg}, "true", "auth", "login")
	p.waitFor("the URL prompt", shows("VisualQ base URL:"))
	p.keys("-l", ts.URL+" "+sandbox.KeyAdmin)
	p.waitFor("the URL echoed", shows(ts.URL))
	p.keys("Enter")
	// The interactive login asks for a profile name, as --name gives it.
	p.waitFor("the name prompt", shows("Profile name, for --profile (Enter for none, or to keep the current one):"))
	p.keys("-l", "prod")
	p.keys("Enter")
	screen := p.waitFor("vq's exit", shows("EXIT="))
	if strings.Contains(screen, sandbox.KeyAdmin) || !strings.Contains(screen, "EXIT=0") || !strings.Contains(screen, "not shown") || !strings.Contains(screen, "Signed in to "+ts.URL+" (prod)") {
		t.Errorf("screen:\n%s", screen)
	}
	if b, _ := os.ReadFile(cfg); !strings.Contains(string(b), sandbox.KeyAdmin) {
		t.Errorf("the key was not saved: %s", b)
	}
}
