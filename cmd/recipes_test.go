package cmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// recipeLine is one vq command line of a CI recipe, as the recipe runs it.
type recipeLine struct{ file, line string }

var (
	// A YAML script or run: line that runs vq, or an input of the action.
	yamlVQ    = regexp.MustCompile(`^\s*(?:- )?(?:run: )?(vq .*)$`)
	yamlInput = regexp.MustCompile(`^\s*(command|branch|commit|wait|args|junit): (.*)$`)
	// A Jenkins sh step (or sh(script: ...)) whose script runs vq.
	jenkinsVQ = regexp.MustCompile(`sh[ (].*'((?:bin/)?vq .*?)'`)
	// The ${{ }} expressions the GitHub recipes use, as a pull request of
	// branch main at commit abc123 has them.
	ghExpression = regexp.MustCompile(`\$\{\{[^}]*\}\}`)
	ghValues     = map[string]string{
		"${{ github.head_ref || github.ref_name }}":               "main",
		"${{ github.sha }}":                                       "abc123",
		"${{ github.event.pull_request.head.sha || github.sha }}": "abc123",
	}
)

// recipeLines are the vq lines of the recipes in docs/ci: the script lines
// of the YAML files (and the YAML blocks of the Markdown), the action's
// args (with its junit input), and the Jenkinsfile's sh steps.
func recipeLines(t *testing.T) []recipeLine {
	t.Helper()
	var lines []recipeLine
	files, _ := filepath.Glob("../docs/ci/*")
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		inYAML := !strings.HasSuffix(name, ".md")
		action := -1 // the line of the action's inputs being read
		for _, text := range strings.Split(string(data), "\n") {
			switch {
			case strings.HasSuffix(name, ".md") && strings.HasPrefix(text, "```"):
				inYAML = text == "```yaml"
			case name == "Jenkinsfile":
				if m := jenkinsVQ.FindStringSubmatch(text); m != nil {
					lines = append(lines, recipeLine{name, m[1]})
				}
			case !inYAML || strings.HasPrefix(strings.TrimSpace(text), "#"):
			case yamlVQ.MatchString(text):
				lines = append(lines, recipeLine{name, yamlVQ.FindStringSubmatch(text)[1]})
			case yamlInput.MatchString(text):
				// The action's inputs, as its script passes them to vq.
				m := yamlInput.FindStringSubmatch(text)
				if m[1] == "command" || action < 0 && m[1] == "args" {
					lines, action = append(lines, recipeLine{name, "vq"}), len(lines)
				}
				if action < 0 {
					continue
				}
				switch m[1] {
				case "command", "args":
					lines[action].line += " " + m[2]
				case "branch", "commit":
					lines[action].line += " " + m[1] + "='" + m[2] + "'"
				case "wait":
					lines[action].line += map[string]string{"true": " --wait"}[m[2]]
				case "junit":
					lines[action].line += " --junit " + m[2]
					action = -1
				}
			}
		}
	}
	return lines
}

// Every vq line of every CI recipe (docs/ci) runs as written, in bash, with
// the built vq first on PATH, against the sandbox, with the CI system's
// variables of a passing run on branch main; it exits 0, and each JUnit
// report it writes is valid against the Jenkins schema and is the one the
// recipe publishes.
func TestEveryCIRecipeRuns(t *testing.T) {
	t.Parallel()
	checkedInThePlainRun(t)
	bin := filepath.Dir(vqBinary(t))
	ts := startSandbox(t)
	lines := recipeLines(t)
	byFile := map[string]int{}
	for _, l := range lines {
		byFile[l.file]++
	}
	for _, file := range []string{"github-actions.md", "example-workflow.yml", "gitlab-ci.yml", "Jenkinsfile"} {
		if byFile[file] == 0 {
			t.Errorf("no vq line found in docs/ci/%s", file)
		}
	}
	for _, l := range lines {
		t.Run(l.file+": "+l.line, func(t *testing.T) {
			dir := t.TempDir()
			os.Mkdir(filepath.Join(dir, "bin"), 0o755)
			os.Symlink(filepath.Join(bin, "vq"), filepath.Join(dir, "bin", "vq"))
			script := ghExpression.ReplaceAllStringFunc(l.line, func(e string) string {
				v, ok := ghValues[e]
				if !ok {
					t.Fatalf("the test does not know the value of %s", e)
				}
				return v
			})
			script = strings.ReplaceAll(script, "https://visualq.example.com", ts.URL)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-c", "set -o pipefail; "+script)
			cmd.Dir = dir
			cmd.Env = []string{
				"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + dir, "VQ_CONFIG=" + filepath.Join(dir, "config.json"), "VQ_NO_KEYRING=1",
				"VQ_BASE_URL=" + ts.URL, "VQ_API_KEY=" + sandbox.KeyAdmin,
				// GitLab, Jenkins and GitHub Actions, on branch main.
				"CI=true", "CI_COMMIT_REF_NAME=main", "CI_COMMIT_SHA=abc123", "BRANCH_NAME=main", "GIT_COMMIT=abc123",
				"BRANCH=main", "GITHUB_SHA=abc123", "RUN_ID=run_pass",
			}
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("ran: %s\nexit %d\n%s", script, code, out.String())
			}
			m := regexp.MustCompile(`--junit (\S+)`).FindStringSubmatch(script)
			if m == nil {
				return
			}
			report, err := os.ReadFile(filepath.Join(dir, m[1]))
			if err != nil {
				t.Fatalf("no JUnit report at %s: %v", m[1], err)
			}
			testkit.ValidJUnit(t, report)
			publishes(t, l.file, m[1])
		})
	}
}

// publishes fails t unless the recipe hands the report vq writes to its CI
// system's test report (GitLab's artifacts:reports:junit, Jenkins' junit
// step; the GitHub recipes leave it to the workflow).
func publishes(t *testing.T, file, report string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../docs/ci", file))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"gitlab-ci.yml": "    reports:\n      junit: " + report + "\n",
		"Jenkinsfile":   "junit testResults: '" + report + "'",
	}[file]
	if want != "" && !strings.Contains(string(data), want) {
		t.Errorf("docs/ci/%s writes %s but does not publish it (%q)", file, report, want)
	}
}
