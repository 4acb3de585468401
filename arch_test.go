package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/visualq/vq"

// importRules is the one table of which vq packages each vq package may
// not import, directly or through others: the rules the packages' doc
// comments state. A package is named by its path in the module ("" for
// vq itself); a rule or a ban ending in "/..." covers everything under it.
var importRules = []struct {
	pkg    string
	banned []string
}{
	// The tests' fake server and ToolResponse builders: a leaf, so that
	// the tests of every package, api's included, can use it.
	{"internal/testkit", []string{"", "api", "cmd/...", "completions", "format", "sandbox", "ui", "bench/..."}},
	// The leaves import nothing of vq but other leaves.
	{"internal/...", []string{"", "api", "cmd/...", "completions", "format", "sandbox", "ui", "bench/..."}},
	{"api", []string{"cmd/...", "completions", "format", "sandbox", "ui", "bench/..."}},
	{"format", []string{"cmd/...", "completions", "sandbox", "ui", "bench/..."}},
	{"ui", []string{"cmd/...", "completions", "format", "sandbox", "bench/..."}},
	{"completions", []string{"cmd/...", "format", "sandbox", "ui", "bench/..."}},
	{"sandbox", []string{"cmd/...", "completions", "format", "ui", "bench/..."}},
	{"cmd/...", []string{"bench/..."}},
	// Nothing shipped imports the benchmarks or the test kit: vq is
	// main's dependencies.
	{"", []string{"bench/...", "internal/testkit"}},
	{"bench/...", nil},
}

// TestImportRules holds every vq package to its row of importRules, on
// the imports of its non-test files as go list reports them.
func TestImportRules(t *testing.T) {
	imports := vqImports(t)
	for pkg := range imports {
		rule := -1
		for i, r := range importRules {
			if covers(r.pkg, pkg) {
				rule = i
				break
			}
		}
		if rule < 0 {
			t.Errorf("%s has no row in importRules: state what it may import in its doc comment and add the rule here", show(pkg))
			continue
		}
		for _, path := range reachable(imports, pkg) {
			dep := path[len(path)-1]
			if slices.ContainsFunc(importRules[rule].banned, func(ban string) bool { return covers(ban, dep) }) {
				t.Errorf("%s must not import %s: %s", show(pkg), show(dep), arrows(path))
			}
		}
	}
}

// vqImports is each vq package's imports of vq packages, by path in the
// module.
func vqImports(t *testing.T) map[string][]string {
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	imports := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkg, ok := inModule(p.ImportPath)
		if !ok {
			continue
		}
		imports[pkg] = []string{}
		for _, imp := range p.Imports {
			if dep, ok := inModule(imp); ok {
				imports[pkg] = append(imports[pkg], dep)
			}
		}
	}
	for _, want := range []string{"", "api", "cmd", "format", "internal/textsafe", "internal/testkit"} {
		if _, ok := imports[want]; !ok {
			t.Fatalf("go list did not report %s: %s", show(want), stderr.String())
		}
	}
	return imports
}

// reachable is, for every vq package pkg imports directly or through
// others, one shortest chain of imports from pkg to it.
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

func arrows(path []string) string {
	shown := make([]string, len(path))
	for i, p := range path {
		shown[i] = show(p)
	}
	return strings.Join(shown, " → ")
}
