package cmd

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
)

// Server text that a GitHub Actions runner would obey as workflow
// commands, were it printed as it came: "::" starting a line (after
// whitespace), "##[" anywhere in one.
const (
	commandRunID = "::set-output name=injected3::x ##[set-output name=status;]passed"
	commandText  = "2 of 3 failed\n::add-mask::X\n##[stop-commands]tok\n  ::set-output name=x::y"
)

// commandServer answers every call with commandRunID and commandText
// where a server's text goes: a CI run whose first poll fails, the run's
// failures (summary, label, warning), and any other tool's error.
func commandServer(t *testing.T) *testkit.Server {
	var polls atomic.Int32
	run := `"runId":` + jsonString(commandRunID) + `,"url":"http://127.0.0.1:1/runs/1"`
	return testkit.NewServer(t, func(c testkit.Call) testkit.Reply {
		switch {
		case c.CI && c.Tool == api.ToolRunStatus && polls.Add(1) == 1:
			return testkit.Answer(503, `{"error":{"code":"internal_error","message":`+jsonString(commandText)+`}}`)
		case c.CI && c.Tool == api.ToolRunStatus:
			return testkit.Answer(200, `{`+run+`,"status":"failed","progress":{"current":3,"total":3},"failed":1,"total":3}`)
		case c.CI:
			return testkit.Answer(200, `{`+run+`,"status":"queued"}`)
		case c.Tool == api.ToolRunFailures:
			data := map[string]any{"runId": commandRunID, "failed": 1, "total": 3, "url": "http://127.0.0.1:1/runs/1",
				"failures": []any{map[string]any{"scenarioLabel": commandText, "viewport": "desktop", "mismatchPercent": 4.2}}}
			return testkit.Answer(200, testkit.OK(c.Tool, commandText, data, testkit.Warnings(commandText)))
		}
		return testkit.Answer(200, testkit.Failure(c.Tool, "tool_error", commandText, false))
	})
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// vqAnnotation is a workflow command vq gives itself: an annotation of a
// call (vq TOOL), of a run (Visual run RUN) or of a changed check.
var vqAnnotation = regexp.MustCompile(`^::(error|warning|notice) title=(vq |Visual run|Visual change%3A )[^:]*::`)

// serverCommands are the lines of out a GitHub Actions runner would read
// as workflow commands (a line ends at LF or CR), vq's own annotations
// aside.
func serverCommands(out string) []string {
	var found []string
	for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		lead := strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::")
		if lead && !vqAnnotation.MatchString(line) || strings.Contains(line, "##[") {
			found = append(found, line)
		}
	}
	return found
}

// Under GitHub Actions no server text forms a workflow command, in any
// output: progress, a poll's failure, the verdict and its hint, warnings,
// errors, plain, Markdown, JSON and --jq. vq's own annotations still do,
// and JSON is the server's document still.
func TestServerTextFormsNoWorkflowCommand(t *testing.T) {
	t.Parallel()
	ciRun := []string{"ci", "run-vrt", "branch=main", "--wait", "--interval", "2ms"}
	for _, tc := range []struct {
		name string
		args []string
		json func(map[string]any) any // what a --json document must hold
	}{
		{"ci github", ciRun, nil},
		{"ci text", slices.Concat(ciRun, []string{"--format", "text"}), nil},
		{"ci markdown", slices.Concat(ciRun, []string{"--format", "markdown"}), nil},
		{"ci json", slices.Concat(ciRun, []string{"--json"}), func(d map[string]any) any { return d["data"].(map[string]any)["runId"] }},
		{"ci jq", slices.Concat(ciRun, []string{"--jq", ".data.runId"}), nil},
		{"failures", []string{"failures", "run_1"}, nil},
		{"failures github", []string{"failures", "run_1", "--format", "github"}, nil},
		{"failures markdown", []string{"failures", "run_1", "--format", "markdown"}, nil},
		{"failures json", []string{"failures", "run_1", "--json"}, func(d map[string]any) any { return d["summary"] }},
		{"failures jq", []string{"failures", "run_1", "--jq", ".summary, .data.failures[0].scenarioLabel, .warnings"}, nil},
		{"error", []string{"invoke", "get_diff_stats", "runId=r"}, nil},
		{"error json", []string{"invoke", "get_diff_stats", "runId=r", "--json"}, func(d map[string]any) any { return d["error"].(map[string]any)["message"] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := commandServer(t).Env()
			env["GITHUB_ACTIONS"] = "true"
			stdout, stderr, exit := runVQ(t, env, tc.args...)
			if exit == exitcode.Usage {
				t.Fatalf("usage: %s", stderr)
			}
			for stream, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
				for _, line := range serverCommands(out) {
					t.Errorf("%s line is a workflow command: %q", stream, line)
				}
			}
			if all := stdout + stderr; !strings.Contains(all, `:\:`) && !strings.Contains(all, `##\u005b`) {
				t.Errorf("the server's text is not in the output:\nstdout: %s\nstderr: %s", stdout, stderr)
			}
			if strings.HasSuffix(tc.name, "github") && !regexp.MustCompile(`(?m)^::error title=`).MatchString(stdout) {
				t.Errorf("vq's own annotations are missing:\n%s", stdout)
			}
			if tc.json != nil {
				var doc map[string]any
				if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
					t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
				}
				if got := tc.json(doc); got != commandRunID && got != commandText {
					t.Errorf("the document's text is %q, not the server's", got)
				}
			}
		})
	}
}

// vq prove --markdown to a stream the runner reads (a pipe) writes the
// comment byte for byte between ::stop-commands:: and a fresh random
// token; to a regular file, the comment alone.
func TestProveMarkdownStopsCommandsUnderGitHubActions(t *testing.T) {
	t.Parallel()
	const comment = "h3. Proof\n::add-mask::X\n##[set-output name=status;]passed"
	env := proveServer(t, proofStep(true, comment)).Env()
	env["GITHUB_ACTIONS"] = "true"
	prove := []string{"prove", "BN-470", "--markdown", "--interval", "1ms"}
	enclosed := regexp.MustCompile(`^::stop-commands::(\S{20,})\n` + regexp.QuoteMeta(comment) + `\n::(\S+)::\n$`)
	var tokens []string
	for range 2 {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		read := make(chan []byte)
		go func() {
			b, _ := io.ReadAll(r)
			read <- b
		}()
		_, stderr, exit := vqRun{Env: env, Out: w}.run(t, prove...)
		w.Close()
		stdout := <-read
		r.Close()
		m := enclosed.FindStringSubmatch(string(stdout))
		if exit != 0 || m == nil || m[1] != m[2] {
			t.Fatalf("to a pipe: exit %d\n%q\n%s", exit, stdout, stderr)
		}
		tokens = append(tokens, m[1])
	}
	if tokens[0] == tokens[1] {
		t.Errorf("two runs stopped commands with the same token %q", tokens[0])
	}

	file, err := os.Create(filepath.Join(t.TempDir(), "comment.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if _, stderr, exit := (vqRun{Env: env, Out: file}).run(t, prove...); exit != 0 {
		t.Fatalf("to a file: exit %d\n%s", exit, stderr)
	}
	if got, _ := os.ReadFile(file.Name()); string(got) != comment {
		t.Errorf("to a file: %q, want the comment alone", got)
	}
}
