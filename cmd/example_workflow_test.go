package cmd

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// The example workflow prints the vq step's outputs, which hold the
// server's text, where the runner obeys no command: no line it prints
// outside ::stop-commands:: forms a command with that text.
func TestExampleWorkflowObeysNoServerCommand(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("the workflow's steps run in bash")
	}
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("the workflow's steps use openssl, as GitHub's runners have it")
	}
	outputs := map[string]string{"run-id": commandRunID, "url": "http://127.0.0.1:1/runs/%0A::add-mask::X", "status": "failed",
		"failed": "1", "total": "3", "exit-code": "3"}
	steps := workflowRunSteps(t, "../docs/ci/example-workflow.yml", outputs)
	if len(steps) < 2 {
		t.Fatalf("found %d run steps", len(steps))
	}
	for _, step := range steps {
		cmd := exec.Command("bash", "-e", "-c", step.script)
		cmd.Env = append(os.Environ(), step.env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", step.script, err)
		}
		stop := ""
		for _, line := range strings.FieldsFunc(string(out), func(r rune) bool { return r == '\n' || r == '\r' }) {
			switch command := strings.HasPrefix(strings.TrimSpace(line), "::") || strings.Contains(line, "##["); {
			case stop != "":
				if line == "::"+stop+"::" {
					stop = ""
				}
			case strings.HasPrefix(line, "::stop-commands::"):
				stop = strings.TrimPrefix(line, "::stop-commands::")
			case command && (strings.Contains(line, "injected3") || strings.Contains(line, "add-mask")):
				t.Errorf("the step\n%s\nprints a command with the server's text: %q", step.script, line)
			}
		}
	}
}

// workflowStep is a run: step of a workflow, with the variables its env:
// gives from the vq step's outputs.
type workflowStep struct {
	script string
	env    []string
}

// workflowRunSteps reads the run: steps of a workflow file as GitHub
// does for the simple YAML of docs/ci: a step's env: entries that name
// ${{ steps.vq.outputs.NAME }} get outputs[NAME], and run: is one line or
// a | block.
func workflowRunSteps(t *testing.T, path string, outputs map[string]string) []workflowStep {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entry := regexp.MustCompile(`^\s+(\w+): \$\{\{ steps\.vq\.outputs\.([\w-]+) \}\}$`)
	var steps []workflowStep
	env := map[string]string{}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(strings.TrimSpace(line), "- ") {
			env = map[string]string{}
		}
		if m := entry.FindStringSubmatch(line); m != nil {
			env[m[1]] = outputs[m[2]]
		}
		indent, run, found := strings.Cut(line, "run: ")
		if !found || strings.TrimSpace(indent) != "" && strings.TrimSpace(indent) != "-" {
			continue
		}
		script := run
		if run == "|" {
			var block []string
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || len(lines[i+1])-len(strings.TrimLeft(lines[i+1], " ")) > len(indent)) {
				i++
				block = append(block, strings.TrimSpace(lines[i]))
			}
			script = strings.Join(block, "\n")
		}
		step := workflowStep{script: script}
		for name, value := range env {
			step.env = append(step.env, name+"="+value)
		}
		steps = append(steps, step)
	}
	return steps
}

// The example workflow passes what every run needs as typed inputs (the
// pull request's head commit, not the merge commit), treats changed checks
// as a review (--exit-zero-on-changes, --save-dir) and marks "review
// needed" from the step's status output.
func TestExampleWorkflowMarksChangesForReview(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../docs/ci/example-workflow.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\n          command: ci run-vrt\n",
		"\n          branch: ${{ github.head_ref || github.ref_name }}\n",
		"\n          commit: ${{ github.event.pull_request.head.sha || github.sha }}\n",
		"\n          wait: true\n",
		"\n          args: --exit-zero-on-changes --save-dir reports/diffs\n",
		"\n      - if: always() && steps.vq.outputs.status == 'failed'\n        run: echo \"::warning title=Review needed::",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the example workflow lacks %q", want)
		}
	}
}
