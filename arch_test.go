package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/visualq/vq"

// importRules is the one table of which packages each vq package may not
// import, directly or through others: the rules the packages' doc
// comments state. A vq package is named by its path in the module ("" for
// vq itself); a rule or a ban ending in "/..." covers everything under it,
// and a ban starting with "!" lifts the row's bans from what it covers.
// external bans packages outside vq, by their import path.
var importRules = []importRule{
	// The tests' fake server and ToolResponse builders: a leaf, so that
	// the tests of every package, api's included, can use it.
	{"internal/testkit", []string{"", "api/...", "cmd/...", "completions", "format", "sandbox", "ui/...", "bench/..."}, nil},
	// The leaves import nothing of vq but other leaves.
	{"internal/...", []string{"", "api/...", "cmd/...", "completions", "format", "sandbox", "ui/...", "bench/..."}, nil},
	// The contract and the invoke transport know no transport above them,
	// nor how the MCP client, OAuth or the keyring work.
	{"api", []string{"api/mcpclient", "api/account", "cmd/...", "completions", "format", "sandbox", "ui/...", "bench/..."},
		[]string{"github.com/modelcontextprotocol/go-sdk/...", "golang.org/x/oauth2/...", "github.com/zalando/go-keyring/..."}},
	// The MCP client signs in through the accounts, which know nothing of
	// it.
	{"api/mcpclient", []string{"", "cmd/...", "completions", "format", "sandbox", "ui/...", "bench/..."}, nil},
	{"api/account", []string{"", "api/mcpclient", "cmd/...", "completions", "format", "sandbox", "ui/...", "bench/..."}, nil},
	// The renderers read api's types, never a client's.
	{"format", []string{"api/mcpclient", "api/account", "cmd/...", "completions", "sandbox", "ui/...", "bench/..."}, nil},
	{"ui", []string{"api/mcpclient", "api/account", "cmd/...", "completions", "format", "sandbox", "bench/..."}, nil},
	// The TUI's components are dumb parts of its pages: none imports a
	// page, nor another component.
	{"ui/components/...", []string{"", "ui", "ui/components/...", "api/mcpclient", "api/account", "cmd/...", "completions", "format", "sandbox", "bench/..."}, nil},
	{"completions", []string{"api/mcpclient", "api/account", "cmd/...", "format", "sandbox", "ui/...", "bench/..."}, nil},
	{"sandbox", []string{"api/mcpclient", "api/account", "cmd/...", "completions", "format", "ui/...", "bench/..."}, nil},
	// The streams and the terminal stand below every command, and the
	// shared pieces below every command group, which all import them:
	// neither imports a command, nor the root that assembles them.
	{"cmd/iostreams", []string{"", "cmd/...", "api/mcpclient", "api/account", "completions", "sandbox", "bench/...", "internal/testkit"}, nil},
	{"cmd/cmdutil", []string{"", "cmd/...", "!cmd/iostreams", "sandbox", "bench/...", "internal/testkit"}, nil},
	// A command group imports the shared pieces, never the root that
	// assembles the groups, nor another group.
	{"cmd/approve", groupBans, nil},
	{"cmd/auth", groupBans, nil},
	{"cmd/ci", groupBans, nil},
	{"cmd/completion", groupBans, nil},
	{"cmd/failures", groupBans, nil},
	{"cmd/invoke", groupBans, nil},
	{"cmd/mcp", groupBans, nil},
	{"cmd/mcpserve", groupBans, nil},
	{"cmd/prove", groupBans, nil},
	{"cmd/task", groupBans, nil},
	{"cmd/version", groupBans, nil},
	// vq sandbox and vq demo serve the sandbox: the one group that may
	// import it.
	{"cmd/sandbox", slices.DeleteFunc(slices.Clone(groupBans), func(ban string) bool { return ban == "sandbox" }), nil},
	{"cmd/...", []string{"bench/..."}, nil},
	// Nothing shipped imports the benchmarks or the test kit: vq is
	// main's dependencies.
	{"", []string{"bench/...", "internal/testkit", "cmd/cmdtest"}, nil},
	{"bench/...", nil, nil},
}

// groupBans are a command group's: the root, other groups, and what
// nothing shipped imports.
var groupBans = []string{"", "cmd/...", "!cmd/cmdutil", "!cmd/iostreams", "sandbox", "bench/...", "internal/testkit"}

type importRule struct {
	pkg              string
	banned, external []string
}

// TestImportRules holds every vq package to its row of importRules, on
// the imports of its non-test files as go list reports them.
func TestImportRules(t *testing.T) {
	graph := importGraph(t)
	for path := range graph {
		pkg, ok := inModule(path)
		if !ok {
			continue
		}
		rule := slices.IndexFunc(importRules, func(r importRule) bool { return covers(r.pkg, pkg) })
		if rule < 0 {
			t.Errorf("%s has no row in importRules: state what it may import in its doc comment and add the rule here", show(pkg))
			continue
		}
		for _, chain := range reachable(graph, path) {
			dep := chain[len(chain)-1]
			bans, name := importRules[rule].external, dep
			if vqDep, ok := inModule(dep); ok {
				bans, name = importRules[rule].banned, vqDep
			}
			if banned(bans, name) {
				t.Errorf("%s must not import %s: %s", show(pkg), show(name), arrows(chain))
			}
		}
	}
}

// importGraph is every package's imports, vq's and those of its
// dependencies, by import path.
func importGraph(t *testing.T) map[string][]string {
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	graph := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		graph[p.ImportPath] = p.Imports
	}
	for _, want := range []string{"", "api", "api/mcpclient", "cmd", "format", "internal/textsafe", "internal/testkit"} {
		if _, ok := graph[strings.TrimSuffix(module+"/"+want, "/")]; !ok {
			t.Fatalf("go list did not report %s: %s", show(want), stderr.String())
		}
	}
	if _, ok := graph["github.com/modelcontextprotocol/go-sdk/mcp"]; !ok {
		t.Fatalf("go list did not report the MCP SDK among vq's dependencies: %s", stderr.String())
	}
	return graph
}

// reachable is, for every package pkg imports directly or through others,
// one shortest chain of imports from pkg to it.
func reachable(imports map[string][]string, pkg string) [][]string {
	var paths [][]string
	seen := map[string]bool{pkg: true}
	queue := [][]string{{pkg}}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		for _, dep := range imports[path[len(path)-1]] {
			if !seen[dep] {
				seen[dep] = true
				next := append(slices.Clip(path), dep)
				paths = append(paths, next)
				queue = append(queue, next)
			}
		}
	}
	return paths
}

func inModule(importPath string) (string, bool) {
	if importPath == module {
		return "", true
	}
	rest, ok := strings.CutPrefix(importPath, module+"/")
	return rest, ok
}

// banned reports whether bans name pkg: one covers it, and no "!" lifts it.
func banned(bans []string, pkg string) bool {
	ban := false
	for _, pattern := range bans {
		if lift, ok := strings.CutPrefix(pattern, "!"); ok && covers(lift, pkg) {
			return false
		}
		ban = ban || covers(pattern, pkg)
	}
	return ban
}

// covers reports whether a rule's or a ban's pattern names pkg.
func covers(pattern, pkg string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == dir || strings.HasPrefix(pkg, dir+"/")
	}
	return pattern == pkg
}

func show(pkg string) string {
	if pkg == "" {
		return "vq (the main package)"
	}
	return pkg
}

// arrows shows a chain of import paths, vq's by their path in the module.
func arrows(chain []string) string {
	shown := make([]string, len(chain))
	for i, path := range chain {
		shown[i] = path
		if pkg, ok := inModule(path); ok {
			shown[i] = show(pkg)
		}
	}
	return strings.Join(shown, " → ")
}

// TestTheBinaryRunsNoTemplate holds the linked vq to having no template
// executor: text/template calls methods by reflection, which makes the
// linker keep every exported method of every type (cobra's Set*Template
// would bring it in). Without it the binary is a sixth smaller, and vq
// starts faster, since the runtime walks its tables at every start.
func TestTheBinaryRunsNoTemplate(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("links vq")
	}
	bin := filepath.Join(t.TempDir(), "vq")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	symbols, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	if !bytes.Contains(symbols, []byte(" cmd.Main")) && !bytes.Contains(symbols, []byte("/cmd.Main")) {
		t.Fatalf("go tool nm lists no cmd.Main: not vq's symbols")
	}
	if bytes.Contains(symbols, []byte("text/template.(*state).evalCall")) {
		t.Error("vq links text/template's executor: a cobra template (SetUsageTemplate, SetHelpTemplate, SetVersionTemplate) is set somewhere; use a function")
	}
}
