package cmd

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/visualq/vq/format"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
	"github.com/zalando/go-keyring"
)

// loggedSandbox is a sandbox that records the key (bearer token) each
// request carried.
type loggedSandbox struct {
	*testkit.Server
	seen int // the calls took has returned
}

func startLoggedSandbox(t *testing.T) *loggedSandbox {
	t.Helper()
	return &loggedSandbox{Server: testkit.Wrap(t, sandbox.New(sandbox.Options{JobStep: time.Millisecond, Rate: -1}).Handler())}
}

// took returns the keys received since the last call, and forgets them.
func (ls *loggedSandbox) took() []string {
	calls := ls.Calls()
	var keys []string
	for _, c := range calls[ls.seen:] {
		keys = append(keys, strings.TrimPrefix(c.Header.Get("Authorization"), "Bearer "))
	}
	ls.seen = len(calls)
	return slices.Compact(keys)
}

// accountsEnv is the environment of one user's vq: a config file of its
// own and, when keyring is set, the (mock) OS keyring instead of keys in
// the file: an empty one the test holds until it ends (keyringTurn). A
// test calls it with keyring set once at most.
func accountsEnv(t *testing.T, useKeyring bool) map[string]string {
	env := map[string]string{"VQ_CONFIG": filepath.Join(t.TempDir(), "vq", "config.json")}
	if useKeyring {
		keyringTurn.Lock()
		t.Cleanup(keyringTurn.Unlock)
		keyring.MockInit()
		env["VQ_NO_KEYRING"] = ""
	}
	return env
}

// keyringTurn makes the keyring tests take turns: go-keyring's mock is the
// process's one map, emptied by MockInit and unsafe for concurrent use, so
// a keyring test beside another lost its keys ("the OS keyring and the
// config file hold none for it"). The other tests, which run vq without a
// keyring (VQ_NO_KEYRING), still run beside them.
var keyringTurn sync.Mutex

func with(env map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func login(t *testing.T, env map[string]string, key string, args ...string) {
	t.Helper()
	_, stderr, exit := vqRun{Env: env, Stdin: key + "\n"}.run(t, append([]string{"auth", "login", "--with-token"}, args...)...)
	if exit != 0 {
		t.Fatalf("login %v: exit %d: %s", args, exit, stderr)
	}
}

// Two servers side by side: each keeps its key, calls go where the
// flags, the environment or the active entry say with that server's key
// only, and logging out of one keeps the other.
func TestTwoServersSideBySide(t *testing.T) {
	t.Parallel()
	for _, useKeyring := range []bool{false, true} {
		name := map[bool]string{false: "config file", true: "keyring"}[useKeyring]
		t.Run(name, func(t *testing.T) {
			staging, prod := startLoggedSandbox(t), startLoggedSandbox(t)
			env := accountsEnv(t, useKeyring)
			login(t, env, sandbox.KeyAdmin, "--base-url", staging.URL, "--name", "staging")
			login(t, env, sandbox.KeyFree, "--base-url", prod.URL+"/", "--name", "prod")
			if got := staging.took(); !slices.Equal(got, []string{sandbox.KeyAdmin}) {
				t.Errorf("staging's log after the logins: %q, want its own key once (the check)", got)
			}
			prod.took()

			raw, _ := os.ReadFile(env["VQ_CONFIG"])
			if hasKeys := strings.Contains(string(raw), sandbox.KeyAdmin) || strings.Contains(string(raw), sandbox.KeyFree); hasKeys == useKeyring {
				t.Errorf("config file (keyring %v):\n%s", useKeyring, raw)
			}

			out, stderr, exit := runVQ(t, env, "auth", "status", "--json")
			var st format.AuthStatus
			if err := json.Unmarshal([]byte(out), &st); err != nil || exit != 0 {
				t.Fatalf("status --json: exit %d %v: %s%s", exit, err, out, stderr)
			}
			if len(st.Servers) != 2 || st.Active != prod.URL || !st.Servers[0].Active || st.Servers[0].Name != "prod" || st.Servers[1].BaseURL != staging.URL {
				t.Errorf("status: %+v", st)
			}
			if strings.Contains(out, sandbox.KeyAdmin) || strings.Contains(out, sandbox.KeyFree) || !strings.Contains(out, "vqs_********in") {
				t.Errorf("status shows a key unmasked, or not at all: %s", out)
			}
			text, _, _ := runVQ(t, env, "auth", "status")
			if !strings.Contains(text, "* "+prod.URL+" (prod)") || !strings.Contains(text, "  "+staging.URL+" (staging)") {
				t.Errorf("status:\n%s", text)
			}

			call := func(env map[string]string, args ...string) {
				t.Helper()
				if _, stderr, exit := runVQ(t, env, append([]string{"failures", "run_abc", "--json"}, args...)...); exit != 0 {
					t.Fatalf("%v: exit %d: %s", args, exit, stderr)
				}
			}
			expect := func(what string, wantStaging, wantProd []string) {
				t.Helper()
				if s, p := staging.took(), prod.took(); !slices.Equal(s, wantStaging) || !slices.Equal(p, wantProd) {
					t.Errorf("%s: staging got %q, prod got %q; want %q and %q", what, s, p, wantStaging, wantProd)
				}
			}
			admin, free := []string{sandbox.KeyAdmin}, []string{sandbox.KeyFree}
			call(env)
			expect("the active server", nil, free)
			call(env, "--profile", "staging")
			expect("--profile staging", admin, nil)
			call(with(env, "VQ_PROFILE", "staging"))
			expect("VQ_PROFILE=staging", admin, nil)
			call(with(env, "VQ_PROFILE", "staging"), "--profile", "prod")
			expect("--profile over VQ_PROFILE", nil, free)
			call(with(env, "VQ_BASE_URL", staging.URL))
			expect("VQ_BASE_URL picks staging's key", admin, nil)
			call(with(env, "VQ_API_KEY", sandbox.KeyReadOnly), "--profile", "staging")
			expect("VQ_API_KEY for the active server", []string{sandbox.KeyReadOnly}, nil)

			if _, stderr, exit := runVQ(t, env, "auth", "switch", "staging"); exit != 0 || !strings.Contains(stderr, "Active server: "+staging.URL+" (staging)") {
				t.Fatalf("switch: exit %d: %s", exit, stderr)
			}
			call(env)
			expect("after switch", admin, nil)

			if _, stderr, exit := runVQ(t, env, "auth", "logout", "--profile", "staging"); exit != 0 || !strings.Contains(stderr, "Active server now: "+prod.URL+" (prod), the one still signed in.") {
				t.Fatalf("logout: exit %d: %s", exit, stderr)
			}
			call(env, "--profile", "prod")
			expect("prod after staging's logout", nil, free)
			if _, _, exit := runVQ(t, env, "failures", "run_abc", "--base-url", staging.URL); exit != exitcode.Unauthorized {
				t.Errorf("staging after its logout: exit %d, want %d", exit, exitcode.Unauthorized)
			}
			expect("staging after its logout", nil, nil)
			if _, stderr, exit := runVQ(t, env, "auth", "switch", "staging"); exit != exitcode.Usage || !strings.Contains(stderr, "signed in: prod") {
				t.Errorf("switch to a logged-out server: exit %d: %s", exit, stderr)
			}
		})
	}
}

// A key the server rejects, or a server that does not answer, is not
// saved, and an entry already there is left as it was; --no-verify saves
// without asking.
func TestLoginSavesOnlyACheckedKey(t *testing.T) {
	t.Parallel()
	ts := startLoggedSandbox(t)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	for _, useKeyring := range []bool{false, true} {
		env := accountsEnv(t, useKeyring)
		login(t, env, sandbox.KeyAdmin, "--base-url", ts.URL)
		before, _ := os.ReadFile(env["VQ_CONFIG"])
		for _, c := range []struct {
			args     []string
			exit     int
			mentions string
		}{
			{[]string{"--base-url", ts.URL}, exitcode.Unauthorized, "rejected the key"},
			{[]string{"--base-url", ts.URL, "--transport", "mcp"}, exitcode.Unauthorized, "rejected the key"},
			{[]string{"--base-url", gone.URL}, exitcode.ForCode("http_error", true), gone.URL},
			{[]string{"--base-url", gone.URL, "--name", "other"}, exitcode.ForCode("http_error", true), gone.URL},
		} {
			_, stderr, exit := vqRun{Env: env, Stdin: "vqs_wrong\n"}.run(t, append([]string{"auth", "login", "--with-token"}, c.args...)...)
			if exit != c.exit || !strings.Contains(stderr, c.mentions) || !strings.Contains(stderr, "nothing was saved") {
				t.Errorf("keyring %v, login %v: exit %d, want %d naming %q: %s", useKeyring, c.args, exit, c.exit, c.mentions, stderr)
			}
			if after, _ := os.ReadFile(env["VQ_CONFIG"]); string(after) != string(before) {
				t.Errorf("keyring %v, login %v changed the config:\n%s", useKeyring, c.args, after)
			}
		}
		ts.took()
		if _, stderr, exit := runVQ(t, env, "failures", "run_abc"); exit != 0 {
			t.Errorf("keyring %v: the good key was lost: exit %d: %s", useKeyring, exit, stderr)
		}
		if got := ts.took(); !slices.Equal(got, []string{sandbox.KeyAdmin}) {
			t.Errorf("keyring %v: after the refused logins the server got %q, want the good key", useKeyring, got)
		}
		_, stderr, exit := vqRun{Env: env, Stdin: "vqs_offline\n"}.run(t, "auth", "login", "--with-token", "--no-verify", "--base-url", gone.URL, "--name", "offline")
		if exit != 0 || !strings.Contains(stderr, "not checked") {
			t.Errorf("keyring %v: --no-verify: exit %d: %s", useKeyring, exit, stderr)
		}
		if out, _, _ := runVQ(t, env, "auth", "status"); !strings.Contains(out, "* "+gone.URL+" (offline)") {
			t.Errorf("keyring %v: after --no-verify:\n%s", useKeyring, out)
		}
	}
}

// A config file of the single-server shape keeps working, and the next
// login rewrites it as entries, privately, losing nothing.
func TestOldConfigIsMigratedWithoutLoss(t *testing.T) {
	t.Parallel()
	old, other := startLoggedSandbox(t), startLoggedSandbox(t)
	t.Run("key in the file", func(t *testing.T) {
		env := accountsEnv(t, false)
		writeOldConfig(t, env, `{"baseUrl": "`+old.URL+`", "apiKey": "`+sandbox.KeyAdmin+`", "project": "shop-web", "environment": "staging", "transport": "invoke"}`)
		checkMigration(t, env, old, other, map[string]any{"project": "shop-web", "environment": "staging", "transport": "invoke", "apiKey": sandbox.KeyAdmin})
	})
	t.Run("key in the keyring", func(t *testing.T) {
		env := accountsEnv(t, true)
		if err := keyring.Set("vq", old.URL, sandbox.KeyAdmin); err != nil {
			t.Fatal(err)
		}
		writeOldConfig(t, env, `{"baseUrl": "`+old.URL+`", "project": "shop-web"}`)
		checkMigration(t, env, old, other, map[string]any{"project": "shop-web"})
	})
}

func writeOldConfig(t *testing.T, env map[string]string, content string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(env["VQ_CONFIG"]), 0o700)
	if err := os.WriteFile(env["VQ_CONFIG"], []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func checkMigration(t *testing.T, env map[string]string, old, other *loggedSandbox, wantEntry map[string]any) {
	t.Helper()
	if out, stderr, exit := runVQ(t, env, "auth", "status"); exit != 0 || !strings.Contains(out, "* "+old.URL) || !strings.Contains(out, "shop-web") {
		t.Errorf("status of the old file: exit %d:\n%s%s", exit, out, stderr)
	}
	if _, stderr, exit := runVQ(t, env, "failures", "run_abc"); exit != 0 {
		t.Errorf("call with the old file: exit %d: %s", exit, stderr)
	}
	if got := old.took(); !slices.Equal(got, []string{sandbox.KeyAdmin}) {
		t.Errorf("the old server got %q", got)
	}
	login(t, env, sandbox.KeyFree, "--base-url", other.URL, "--name", "other")
	raw, err := os.ReadFile(env["VQ_CONFIG"])
	info, _ := os.Stat(env["VQ_CONFIG"])
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("rewritten config: %v, mode %v", err, info.Mode())
	}
	var file struct {
		Active  string                    `json:"active"`
		BaseURL string                    `json:"baseUrl"`
		Servers map[string]map[string]any `json:"servers"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if file.BaseURL != "" || file.Active != other.URL || len(file.Servers) != 2 || file.Servers[other.URL]["name"] != "other" {
		t.Errorf("rewritten config:\n%s", raw)
	}
	if got := file.Servers[old.URL]; !mapsEqual(got, wantEntry) {
		t.Errorf("the old server's entry is %v, want %v", got, wantEntry)
	}
	if _, stderr, exit := runVQ(t, env, "failures", "run_abc", "--profile", old.URL); exit != 0 {
		t.Errorf("old server after the rewrite: exit %d: %s", exit, stderr)
	}
	if got := old.took(); !slices.Equal(got, []string{sandbox.KeyAdmin}) {
		t.Errorf("after the rewrite the old server got %q", got)
	}
}

func mapsEqual(a, b map[string]any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// The interactive login takes a host without a scheme as https://, and
// its errors name the prompt that was answered, not a flag.
func TestInteractiveLoginNamesThePrompt(t *testing.T) {
	t.Parallel()
	ts := startLoggedSandbox(t)
	env := accountsEnv(t, false)
	_, stderr, exit := vqRun{Env: env, TTY: true, Stdin: "http://visualq.example.com\n"}.run(t, "auth", "login")
	if exit != exitcode.Usage || !strings.Contains(stderr, "use an https:// URL") || strings.Contains(stderr, "--base-url") {
		t.Errorf("plain http at the prompt: exit %d: %s", exit, stderr)
	}
	_, stderr, exit = vqRun{Env: env, TTY: true, Stdin: "\n"}.run(t, "auth", "login")
	if exit != exitcode.Usage || !strings.Contains(stderr, "VisualQ base URL prompt") {
		t.Errorf("nothing at the prompt: exit %d: %s", exit, stderr)
	}
	// A name another server holds stops the login before the key is asked.
	login(t, env, sandbox.KeyAdmin, "--base-url", ts.URL, "--name", "local")
	_, stderr, exit = vqRun{Env: env, TTY: true, Stdin: "visualq.example.com\n"}.run(t, "auth", "login", "--name", "local")
	if exit != exitcode.Usage || !strings.Contains(stderr, "No scheme given: using https://visualq.example.com") || !strings.Contains(stderr, "already the name of "+ts.URL) {
		t.Errorf("host without a scheme: exit %d: %s", exit, stderr)
	}
}

// The interactive login takes a loopback address typed without a scheme
// as http:// (the sandbox, a server on this machine), and signs in there.
func TestInteractiveLoginOfLoopbackDefaultsToHTTP(t *testing.T) {
	t.Parallel()
	ts := startLoggedSandbox(t)
	port := ts.URL[strings.LastIndex(ts.URL, ":")+1:]
	for _, host := range []string{"127.0.0.1", "localhost", "LOCALHOST", "[::1]"} {
		env := accountsEnv(t, false)
		if host == "[::1]" && !listens(t, "[::1]:0") {
			continue
		}
		ts.took()
		_, stderr, exit := vqRun{Env: env, TTY: true, Stdin: host + ":" + port + " " + sandbox.KeyAdmin + "\n"}.run(t, "auth", "login")
		if host == "[::1]" {
			// The sandbox listens on 127.0.0.1 only: the login fails, but
			// after trying http://.
			if !strings.Contains(stderr, "No scheme given: using http://[::1]:"+port) {
				t.Errorf("%s: exit %d: %s", host, exit, stderr)
			}
			continue
		}
		if exit != 0 || !strings.Contains(stderr, "No scheme given: using http://"+host+":"+port) {
			t.Errorf("%s: exit %d: %s", host, exit, stderr)
		}
		if got := ts.took(); !slices.Equal(got, []string{sandbox.KeyAdmin}) {
			t.Errorf("%s: the server got %q", host, got)
		}
	}
}

// listens reports whether this machine can listen on addr (IPv6 may be off).
func listens(t *testing.T, addr string) bool {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		ln.Close()
	}
	return err == nil
}

// An https:// URL to a server that speaks plain HTTP is explained in
// words at the login, and nothing is saved (the calls:
// cmd/mcp/testdata/script/https_to_plain_server.txtar).
func TestHTTPSToAPlainServerIsExplained(t *testing.T) {
	t.Parallel()
	ts := startLoggedSandbox(t)
	hostPort := strings.TrimPrefix(ts.URL, "http://")
	want := hostPort + " answers plain HTTP, not HTTPS (TLS): for a server on this machine use http://" + hostPort + "; otherwise check the URL's port"
	accounts := accountsEnv(t, false)
	_, stderr, exit := vqRun{Env: accounts, TTY: true, Stdin: "https://" + hostPort + " " + sandbox.KeyAdmin + "\n"}.run(t, "auth", "login")
	if exit != exitcode.ForCode("http_error", true) || !strings.Contains(stderr, want) || !strings.Contains(stderr, "nothing was saved") || strings.Contains(stderr, "gave HTTP response") {
		t.Errorf("login: exit %d: %s", exit, stderr)
	}
	if _, err := os.Stat(accounts["VQ_CONFIG"]); err == nil {
		t.Error("the login saved a config")
	}
}
