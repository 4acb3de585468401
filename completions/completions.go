// Package completions holds what shell completion offers beyond the command
// tree: the tool catalogue (the server's, else vq's) and recently seen run and
// job IDs, cached so completing never waits on the network for what is known.
package completions

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/layout"
	"github.com/visualq/vq/internal/privatefile"
	"github.com/visualq/vq/internal/textsafe"
)

// Tool is a tool vq can call and the names of its arguments.
type Tool struct {
	Name string   `json:"name"`
	Args []string `json:"args"`
}

// BuiltinTools is api.KnownTools without the CI ones, for a server that lists none.
func BuiltinTools() []Tool {
	var tools []Tool
	for _, spec := range api.KnownTools() {
		if spec.CI {
			continue
		}
		t := Tool{Name: spec.Name}
		for _, a := range spec.InputArgs() {
			t.Args = append(t.Args, a.Name)
		}
		tools = append(tools, t)
	}
	return tools
}

func Find(tools []Tool, name string) (Tool, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Lister asks a server for the tools it offers (MCP tools/list).
type Lister func(context.Context) ([]Tool, error)

// FromAPI is a server's tool list as completion keeps it: names and argument names.
func FromAPI(tools []api.Tool) []Tool {
	out := make([]Tool, len(tools))
	for i, t := range tools {
		out[i].Name = t.Name
		for _, a := range t.Arguments {
			out[i].Args = append(out[i].Args, a.Name)
		}
	}
	return out
}

// Kinds of recently seen IDs: the JSON member names they arrive in.
const (
	RunID = "runId"
	JobID = "jobId"
)

const (
	DefaultTTL = 10 * time.Minute // DefaultTTL trusts a tool list for a burst of TABs, not a deployment.
	maxRecent  = 20               // IDs kept per kind, newest first
)

// Cache is the completion cache in Dir; an empty Dir is none.
type Cache struct {
	Dir string
	TTL time.Duration
	Now func() time.Time
	// Server, when set, keeps the IDs Remember records under it too, and
	// Recent reads those: the runs seen on one server.
	Server string
}

// Open is this user's cache: $XDG_CACHE_HOME/vq, else the OS cache directory,
// read through getenv so tests choose it.
func Open(getenv func(string) string) Cache {
	return Cache{Dir: cacheDir(getenv), TTL: DefaultTTL, Now: time.Now}
}

func cacheDir(getenv func(string) string) string {
	if dir := getenv("XDG_CACHE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "vq")
	}
	var base string
	switch home := getenv("HOME"); {
	case runtime.GOOS == "windows":
		base = getenv("LocalAppData")
	case home == "":
	case runtime.GOOS == "darwin":
		base = filepath.Join(home, "Library", "Caches")
	default:
		base = filepath.Join(home, ".cache")
	}
	if base == "" {
		return ""
	}
	return filepath.Join(base, "vq")
}

type toolsFile struct {
	Fetched time.Time `json:"fetched"`
	Tools   []Tool    `json:"tools"`
}

// Tools is server's catalogue: cached while fresh, else from list, else
// BuiltinTools, cached too so a server that cannot list costs one try per TTL.
func (c Cache) Tools(ctx context.Context, server string, list Lister) []Tool {
	path := c.path("tools-" + shortHash(server) + ".json")
	var cached toolsFile
	if c.read(path, &cached) && c.Now().Sub(cached.Fetched) < c.TTL && len(cached.Tools) > 0 {
		return candidateTools(cached.Tools)
	}
	tools, err := list(ctx)
	if tools = candidateTools(tools); err != nil || len(tools) == 0 {
		tools = BuiltinTools()
	}
	slices.SortFunc(tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	c.write(path, toolsFile{Fetched: c.Now(), Tools: tools})
	return tools
}

// candidateTools keeps the tools and arguments whose names are plain text: they
// reach the shell, which would echo controls and split on line breaks.
func candidateTools(tools []Tool) []Tool {
	var keep []Tool
	for _, t := range tools {
		if !textsafe.Plain(t.Name) {
			continue
		}
		args := t.Args[:0:0]
		for _, a := range t.Args {
			if textsafe.Plain(a) {
				args = append(args, a)
			}
		}
		t.Args = args
		keep = append(keep, t)
	}
	return keep
}

// Remember records the run and job IDs atop a response's data and in its next
// actions, for completing them later.
func (c Cache) Remember(r *api.ToolResponse) {
	if c.Dir == "" || r == nil {
		return
	}
	var seen []kindID
	for _, kind := range IDKinds {
		var id string
		if json.Unmarshal(layout.Member(r.Data, r.Members, kind), &id) == nil && completable(id) {
			seen = append(seen, kindID{kind, id})
		}
	}
	for _, a := range r.NextActions {
		seen = appendIDs(seen, a.Args)
	}
	if len(seen) == 0 {
		return
	}
	path := c.path("recent.json")
	recent := map[string][]string{}
	c.read(path, &recent)
	changed := false
	for _, s := range seen {
		for _, key := range slices.Compact([]string{s.kind, c.key(s.kind)}) {
			list := recent[key]
			if len(list) > 0 && list[0] == s.id {
				continue
			}
			list = slices.DeleteFunc(list, func(id string) bool { return id == s.id })
			recent[key] = append([]string{s.id}, list[:min(len(list), maxRecent-1)]...)
			changed = true
		}
	}
	if changed {
		c.write(path, recent)
	}
}

// IDKinds are the arguments that are IDs, which Remember keeps.
var IDKinds = []string{RunID, JobID}

type kindID struct{ kind, id string }

// appendIDs appends the IDs among a call's arguments.
func appendIDs(seen []kindID, m map[string]any) []kindID {
	for _, kind := range IDKinds {
		if id, ok := m[kind].(string); ok && completable(id) {
			seen = append(seen, kindID{kind, id})
		}
	}
	return seen
}

// completable keeps out IDs a shell would split or mangle.
func completable(id string) bool {
	return len(id) <= 200 && !strings.Contains(id, " ") && textsafe.Plain(id)
}

// Recent are the IDs of a kind (RunID, JobID) seen lately, newest first.
func (c Cache) Recent(kind string) []string {
	recent := map[string][]string{}
	c.read(c.path("recent.json"), &recent)
	return recent[c.key(kind)]
}

// key is where the IDs of kind seen on c.Server are kept.
func (c Cache) key(kind string) string {
	if c.Server == "" {
		return kind
	}
	return kind + " " + shortHash(c.Server)
}

func (c Cache) path(name string) string {
	if c.Dir == "" {
		return ""
	}
	return filepath.Join(c.Dir, name)
}

// maxCacheFile bounds a cache file read (thousands of tools fit); /dev/zero or
// a FIFO is passed over instead of holding the shell.
const maxCacheFile = 8 << 20

// read and write ignore failures: a broken cache makes completion less helpful, never wrong.
func (c Cache) read(path string, v any) bool {
	if path == "" {
		return false
	}
	b, err := privatefile.Read(path, maxCacheFile)
	return err == nil && json.Unmarshal(b, v) == nil
}

func (c Cache) write(path string, v any) {
	if path == "" {
		return
	}
	if b, err := json.Marshal(v); err == nil {
		_ = privatefile.Write(path, b)
	}
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}
