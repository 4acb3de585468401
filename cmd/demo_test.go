package cmd

import (
	"os"
	"strings"
	"testing"
)

func TestDemoInAPipeListsTheFailures(t *testing.T) {
	t.Parallel()
	// The user's own settings, and their config file, must not leak into
	// the demo.
	cfg := t.TempDir() + "/config.json"
	os.WriteFile(cfg, []byte(`{"endpoint":"https://mcp.example.invalid/mcp","transport":"mcp","project":"theirs"}`), 0o600)
	stdout, stderr, exit := runVQ(t, map[string]string{"VQ_API_KEY": "users-real-key", "VQ_PROJECT": "their-project", "VQ_CONFIG": cfg}, "demo")
	if exit != 0 {
		t.Fatalf("exit %d: %s", exit, stderr)
	}
	for _, want := range []string{
		"3 of 12 checks failed.\n",
		"  Homepage       desktop               4.2  http://127.0.0.1:",
		"  vq diff run_abc --scenario Homepage --viewport desktop\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{"vq demo: sandbox at http://127.0.0.1:", "start one with vq sandbox",
		"export VQ_BASE_URL=http://127.0.0.1:8787 VQ_API_KEY=vqs_admin"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
