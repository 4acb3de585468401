package completions

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/visualq/vq/api"
)

// response decodes an answer as the client does (data indexed).
func response(t *testing.T, body string) *api.ToolResponse {
	t.Helper()
	r, err := api.DecodeToolResponse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRememberKeepsRecentIDsNewestFirst(t *testing.T) {
	c := Cache{Dir: t.TempDir(), TTL: DefaultTTL, Now: time.Now}
	c.Remember(response(t, `{"ok":true,"data":{"runId":"run_old"}}`))
	c.Remember(response(t, `{"ok":true,"data":{"jobId":"job_1","status":"queued"}}`))
	c.Remember(response(t, `{"ok":true,"data":null,"nextActions":[{"tool":"get_run_failures","args":{"runId":"run_new"}}]}`))
	c.Remember(response(t, `{"ok":true,"data":{"runId":"run_old"}}`))
	c.Remember(response(t, `{"ok":true,"data":{"runId":"bad id\u001b[2J"}}`))
	if got := c.Recent(RunID); !slices.Equal(got, []string{"run_old", "run_new"}) {
		t.Errorf("recent runs = %q", got)
	}
	if got := c.Recent(JobID); !slices.Equal(got, []string{"job_1"}) {
		t.Errorf("recent jobs = %q", got)
	}
	for i := range 3 * maxRecent {
		c.Remember(&api.ToolResponse{Data: json.RawMessage(`{"runId":"run_` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `"}`)})
	}
	if n := len(c.Recent(RunID)); n != maxRecent {
		t.Errorf("kept %d run IDs, want %d", n, maxRecent)
	}
}

func TestToolsAreCachedForTheTTL(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := Cache{Dir: t.TempDir(), TTL: time.Minute, Now: func() time.Time { return now }}
	calls := 0
	list := func(context.Context) ([]Tool, error) {
		calls++
		return []Tool{{Name: "custom_tool", Args: []string{"alpha"}}}, nil
	}
	for range 3 {
		if tools := c.Tools(context.Background(), "https://a", list); len(tools) != 1 || tools[0].Name != "custom_tool" {
			t.Fatalf("tools = %+v", tools)
		}
	}
	if calls != 1 {
		t.Errorf("listed %d times within the TTL, want 1", calls)
	}
	c.Tools(context.Background(), "https://b", list)
	now = now.Add(2 * time.Minute)
	c.Tools(context.Background(), "https://a", list)
	if calls != 3 {
		t.Errorf("another server and an expired entry must list again: %d calls, want 3", calls)
	}
}

func TestAServerThatCannotListGetsTheBuiltinToolsOncePerTTL(t *testing.T) {
	c := Cache{Dir: t.TempDir(), TTL: time.Minute, Now: time.Now}
	calls := 0
	failing := func(context.Context) ([]Tool, error) { calls++; return nil, errors.New("no tools/list") }
	for range 2 {
		tools := c.Tools(context.Background(), "https://a", failing)
		if _, ok := Find(tools, "get_diff_stats"); !ok {
			t.Fatalf("want the built-in tools, got %+v", tools)
		}
	}
	if calls != 1 {
		t.Errorf("failing lister called %d times, want 1", calls)
	}
}

// BuiltinTools offers the tools vq invoke can call, each with the keys
// completion proposes: a write tool's confirm too; the CI endpoint's tools
// are not invoke tools.
func TestBuiltinToolsAreWhatVqInvokeCanCall(t *testing.T) {
	got := BuiltinTools()
	for _, spec := range api.KnownTools() {
		i := slices.IndexFunc(got, func(tool Tool) bool { return tool.Name == spec.Name })
		if spec.CI {
			if i >= 0 {
				t.Errorf("%s is a CI tool, which vq invoke cannot call", spec.Name)
			}
			continue
		}
		if i < 0 {
			t.Errorf("%s is missing", spec.Name)
			continue
		}
		if writes := slices.Contains(got[i].Args, api.ArgConfirm); writes != spec.Write {
			t.Errorf("%s: confirm offered %v, but the tool writes: %v", spec.Name, writes, spec.Write)
		}
	}
	for _, want := range []Tool{
		{"approve_vrt_results", []string{"runId", "scenarioLabel", "viewport", "confirm"}},
		{"get_diff_stats", []string{"runId", "scenarioLabel", "viewport"}},
		{"tracking_prove_jira_ticket", []string{"ticket"}},
	} {
		if i := slices.IndexFunc(got, func(tool Tool) bool { return tool.Name == want.Name }); i < 0 || !slices.Equal(got[i].Args, want.Args) {
			t.Errorf("%s: offered %v, want %v", want.Name, got, want.Args)
		}
	}
}

func TestCacheDirFollowsXDG(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := Open(env(map[string]string{"XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"})).Dir; got != filepath.Join("/x/cache", "vq") {
		t.Errorf("with XDG_CACHE_HOME: %q", got)
	}
	if got := Open(env(nil)).Dir; got != "" {
		t.Errorf("no XDG_CACHE_HOME nor HOME must mean no cache, got %q", got)
	}
	c := Open(env(nil))
	c.Remember(response(t, `{"ok":true,"data":{"runId":"run_x"}}`))
	if got := c.Recent(RunID); len(got) != 0 {
		t.Errorf("a cache without a directory remembered %q", got)
	}
}

func TestServerToolNamesThatAreNoCandidatesAreDropped(t *testing.T) {
	c := Cache{Dir: t.TempDir(), TTL: time.Minute, Now: time.Now}
	tools := c.Tools(context.Background(), "https://x", func(context.Context) ([]Tool, error) {
		return []Tool{{Name: "evil\x1b]0;PWNED\x07", Args: []string{"a"}}, {Name: "ok_tool", Args: []string{"fine", "bad\nline"}}}, nil
	})
	if len(tools) != 1 || tools[0].Name != "ok_tool" || len(tools[0].Args) != 1 || tools[0].Args[0] != "fine" {
		t.Errorf("tools %q", tools)
	}
}
