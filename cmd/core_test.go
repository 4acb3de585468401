package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/cmd/cmdutil"
	"github.com/visualq/vq/cmd/iostreams"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
)

func TestEveryErrorCodeHasItsExitCode(t *testing.T) {
	t.Parallel()
	codes := []string{"validation_error", "confirm_required", "scope_denied", "plan_gate", "rate_limit",
		"project_resolution_error", "tool_error", "pipeline_blocked", "save_failed", "http_error", "not_found", "proof_failed"}
	seen := map[int]string{}
	for i, code := range codes {
		if code == "http_error" {
			continue // only vq gives it (TestAServerCannotPassForTheClient)
		}
		for _, recoverable := range []bool{true, false} {
			body := testkit.Failure("some_tool", code, "why "+code, recoverable, testkit.Summary("it failed"))
			s := testkit.NewServer(t, testkit.Always(400, body))
			stdout, stderr, exit := runVQ(t, s.Env(), "invoke", "some_tool", "--no-retry")
			want := 11 + i
			if !recoverable {
				want = 31 + i
			}
			if exit != want {
				t.Errorf("%s recoverable=%v: exit %d, want %d", code, recoverable, exit, want)
			}
			if prev, dup := seen[exit]; dup {
				t.Errorf("%s and %s share exit %d", code, prev, exit)
			}
			seen[exit] = code
			if !strings.Contains(stderr, "error: "+code+": why "+code) || stdout != "✗ it failed\n" {
				t.Errorf("%s: stdout %q stderr %q", code, stdout, stderr)
			}
			jsonOut, _, jsonExit := runVQ(t, s.Env(), "invoke", "some_tool", "--no-retry", "--json")
			if jsonOut != body+"\n" || jsonExit != exit {
				t.Errorf("%s --json: %q exit %d, want the server's document and exit %d", code, jsonOut, jsonExit, exit)
			}
		}
	}
}

// A server's error code that only vq gives (the client's own failures and
// verdicts, and http_error) never passes for the client: it exits as the
// tool's failure, and the message keeps the server's code.
func TestAServerCannotPassForTheClient(t *testing.T) {
	t.Parallel()
	for _, row := range exitcode.Table() {
		if !exitcode.Reserved(row.Code) || (row.Recoverable != nil && !*row.Recoverable) {
			continue
		}
		t.Run(row.Code, func(t *testing.T) {
			t.Parallel()
			body := testkit.Failure("some_tool", row.Code, "the server says so", true)
			s := testkit.NewServer(t, func(c testkit.Call) testkit.Reply {
				if c.CI {
					return testkit.Answer(403, `{"error":{"code":"`+row.Code+`","message":"the server says so","recoverable":true}}`)
				}
				return testkit.Answer(400, body)
			})
			want := exitcode.ForCode(api.CodeToolError, true)
			words := fmt.Sprintf("error: tool_error: the server says so (the server's error code %q is one only vq gives: read as tool_error)", row.Code)
			for _, args := range [][]string{{"invoke", "some_tool", "--no-retry"}, {"ci", "call", "some_tool", "--no-retry"}} {
				_, stderr, exit := runVQ(t, s.Env(), args...)
				if exit != want || !strings.Contains(stderr, words) {
					t.Errorf("vq %s: exit %d, want %d; stderr %q", strings.Join(args, " "), exit, want, stderr)
				}
			}
			stdout, _, _ := runVQ(t, s.Env(), "invoke", "some_tool", "--no-retry", "--json", "--jq", ".error.code")
			if stdout != "tool_error\n" {
				t.Errorf("--json's code %q, want tool_error", stdout)
			}
		})
	}
}

func TestExitCodesJSONMatchesWhatVQExitsWith(t *testing.T) {
	t.Parallel()
	stdout, _, exit := runVQ(t, nil, "exit-codes", "--json")
	var rows []exitcode.Row
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil || exit != 0 {
		t.Fatalf("exit %d, %v: %s", exit, err, stdout)
	}
	byCode := map[string][]exitcode.Row{}
	for _, r := range rows {
		byCode[r.Code] = append(byCode[r.Code], r)
	}
	for _, tc := range []struct {
		code        string
		recoverable bool
	}{{"rate_limit", true}, {"scope_denied", false}, {"proof_failed", true}} {
		s := testkit.NewServer(t, testkit.Always(422, testkit.Failure("some_tool", tc.code, "why "+tc.code, tc.recoverable)))
		_, _, exit := runVQ(t, s.Env(), "invoke", "x", "--no-retry")
		found := false
		for _, r := range byCode[tc.code] {
			found = found || (r.Exit == exit && r.Recoverable != nil && *r.Recoverable == tc.recoverable)
		}
		if !found {
			t.Errorf("%s recoverable=%v exits %d, which the table does not list", tc.code, tc.recoverable, exit)
		}
	}
	for _, code := range []string{"usage", "unauthorized", "interrupted", "unknown", "timeout", "run_failed"} {
		if len(byCode[code]) == 0 {
			t.Errorf("the table lacks %s", code)
		}
	}
}

const withActions = `{"ok":true,"tool":"get_run_failures","summary":"3 of 12 checks failed.\u001b[2J\u001b]0;pwned\u0007",
 "data":{"runId":"run_abc","failed":3,"total":12,"failures":[
   {"scenarioLabel":"Homepage","viewport":"desktop","mismatchPercent":4.2},
   {"scenarioLabel":"Cart \u001b[31mred\u001b[0m","viewport":"mobile","mismatchPercent":12.75}]},
 "warnings":["baseline is \u001b[5mold\u001b[0m"],
 "nextActions":[
   {"label":"Inspect Homepage desktop","tool":"get_diff_stats","args":{"runId":"run_abc","scenarioLabel":"Homepage","viewport":"desktop"}},
   {"label":"Tricky","tool":"get_diff_stats","args":{"scenarioLabel":"it's a \"quote\" $HOME ` + "`" + `id` + "`" + ` ; rm -rf /","viewport":"wide 1280×720","limit":5,"deep":{"a":[true,null]}}},
   {"label":"Controls \u202eevil","tool":"get_diff_stats","args":{"scenarioLabel":"line1\nline2\u001b[31m\u202e","viewport":"x"}},
   {"label":"Odd key","tool":"t","args":{"a=b":"c","--flag":"d"}}]}`

// TestPrintedNextActionsRunAsPrinted runs every printed next-action line
// (a task command or vq invoke) through a real shell and checks the
// server received exactly the suggested arguments.
func TestPrintedNextActionsRunAsPrinted(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	bin := vqBinary(t)
	s := testkit.NewServer(t, testkit.Always(200, withActions))
	stdout, _, _ := runVQ(t, s.Env(), "failures", "run_abc")
	var resp struct {
		NextActions []struct {
			Args map[string]any `json:"args"`
		} `json:"nextActions"`
	}
	dec := json.NewDecoder(strings.NewReader(withActions))
	dec.UseNumber()
	if err := dec.Decode(&resp); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "  vq ") {
			lines = append(lines, strings.TrimPrefix(l, "  "))
		}
	}
	if len(lines) != len(resp.NextActions) {
		t.Fatalf("%d command lines for %d actions:\n%s", len(lines), len(resp.NextActions), stdout)
	}
	for i, line := range lines {
		before := len(s.Calls())
		cmd := exec.Command(bash, "-c", line)
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"), "VQ_BASE_URL="+s.URL, "VQ_API_KEY=k", "VQ_NO_KEYRING=1", "VQ_CONFIG="+t.TempDir()+"/c.json")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", line, err, out)
			continue
		}
		calls := s.Calls()
		if len(calls) != before+1 {
			t.Fatalf("%s sent %d calls", line, len(calls)-before)
		}
		if got := calls[len(calls)-1].Args; !reflect.DeepEqual(got, resp.NextActions[i].Args) {
			t.Errorf("%s\nsent %v\nwant %v", line, got, resp.NextActions[i].Args)
		}
	}
}

func TestLoginWritesAPrivateConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "vq", "config.json")
	env := map[string]string{"VQ_CONFIG": cfg}
	_, stderr, exit := vqRun{Env: env, Stdin: "vqs_admin\n"}.run(t, "auth", "login", "--base-url", "http://127.0.0.1:9", "--with-token", "--no-verify")
	if exit != 0 {
		t.Fatalf("exit %d: %s", exit, stderr)
	}
	info, err := os.Stat(cfg)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("config %v mode %v", err, info.Mode())
	}
	if dirInfo, _ := os.Stat(filepath.Dir(cfg)); dirInfo.Mode().Perm() != 0o700 {
		t.Errorf("config dir mode %v", dirInfo.Mode())
	}
	stdout, _, exit := vqRun{Env: env}.run(t, "auth", "status")
	if exit != 0 || strings.Contains(stdout, "vqs_admin") || !strings.Contains(stdout, "vqs_********in") {
		t.Errorf("status exit %d shows %q", exit, stdout)
	}
	s := testkit.NewServer(t, testkit.Always(200, `{"ok":true,"tool":"t","summary":"ok","data":null,"warnings":[],"nextActions":[]}`))
	vqRun{Env: env}.run(t, "invoke", "t", "--base-url", s.URL)
	if len(s.Calls()) != 0 {
		t.Errorf("a key stored for one server was sent to another")
	}
	_, _, exit = vqRun{Env: env}.run(t, "auth", "logout")
	if _, _, after := (vqRun{Env: env}).run(t, "auth", "status"); exit != 0 || after != exitcode.Unauthorized {
		t.Errorf("logout exit %d, status after %d", exit, after)
	}
}

func TestConfirmPromptOnATerminal(t *testing.T) {
	t.Parallel()
	s := testkit.NewServer(t, testkit.Always(400, testkit.Failure("some_tool", "confirm_required", "why confirm_required", true)))
	run := func(ctx context.Context, stdin io.Reader) (string, int) {
		var out, errOut bytes.Buffer
		env := map[string]string{"VQ_BASE_URL": s.URL, "VQ_API_KEY": "k", "VQ_NO_KEYRING": "1", "VQ_CONFIG": t.TempDir() + "/c.json"}
		f := &cmdutil.Factory{IOStreams: &iostreams.IOStreams{In: stdin, Out: &out, ErrOut: &errOut, InTTY: true, ErrTTY: true}, Getenv: func(k string) string { return env[k] }}
		err := execute(ctx, f, []string{"invoke", "write_tool", "--no-tui"}, func() {})
		return errOut.String(), exitcode.Of(err)
	}
	stderr, _ := run(context.Background(), strings.NewReader("y\n"))
	calls := s.Calls()
	if len(calls) != 2 || calls[1].Args["confirm"] != true || !strings.Contains(stderr, "Send write_tool again? [y/N]") {
		t.Fatalf("yes at the prompt: calls %v, stderr %q", calls, stderr)
	}
	// Ctrl-C at the prompt ends it at once with 130, and sends nothing more.
	ctx, cancel := context.WithCancel(context.Background())
	defer time.AfterFunc(200*time.Millisecond, cancel).Stop()
	never, w := io.Pipe()
	start := time.Now()
	if _, exit := run(ctx, never); exit != exitcode.Interrupted || time.Since(start) > 5*time.Second {
		t.Errorf("interrupted prompt: exit %d after %s", exit, time.Since(start))
	}
	w.Close() // ends the abandoned read (the process's exit would)
	if n := len(s.Calls()); n != 3 {
		t.Errorf("%d calls; the interrupted prompt must not resend", n)
	}
}

// The task commands send the tools and argument names the registry holds.
func TestTaskCommandsSendTheSpecArguments(t *testing.T) {
	t.Parallel()
	answer := `{"ok":true,"tool":"t","summary":"done","data":null,"warnings":[],"nextActions":[]}`
	type taskCase struct {
		args []string
		tool string
		sent string // the args object, as JSON
	}
	cases := []taskCase{
		{[]string{"failures", "run_1"}, "get_run_failures", `{"runId":"run_1"}`},
		{[]string{"diff", "run_1", "--scenario", "Home page", "--viewport", "mobile"}, "get_diff_stats", `{"runId":"run_1","scenarioLabel":"Home page","viewport":"mobile"}`},
		{[]string{"approve", "run_1"}, "approve_vrt_results", `{"runId":"run_1"}`},
		{[]string{"approve", "run_1", "--scenario", "Home", "--viewport", "desktop", "--yes"}, "approve_vrt_results", `{"confirm":true,"runId":"run_1","scenarioLabel":"Home","viewport":"desktop"}`},
		{[]string{"scenario", "create", "--goal", "Buy a hat", "--start-path", "/hats"}, "create_frt_scenario", `{"goal":"Buy a hat","startPath":"/hats"}`},
		{[]string{"scenario", "create", "--goal", "Buy a hat"}, "create_frt_scenario", `{"goal":"Buy a hat"}`},
		{[]string{"scenario", "find", "checkout"}, "frt_find_scenarios", `{"query":"checkout"}`},
		{[]string{"tracking", "plan", "--scenario", "scn_1", "market=fr"}, "tracking_get_plan", `{"market":"fr","scenarioId":"scn_1"}`},
		{[]string{"tracking", "plan"}, "tracking_get_plan", `{}`},
		{[]string{"tracking", "run", "--scenario", "scn_1"}, "run_tracking", `{"scenarioId":"scn_1"}`},
		{[]string{"prove", "BN-470", "--no-wait"}, "tracking_prove_jira_ticket", `{"ticket":"BN-470"}`},
	}
	// Every task command of the table is among the cases, as the command
	// that fronts its tool.
	for _, row := range cmdutil.TaskCommands {
		if row.Spec().CI || row.Tool == api.ToolJobStatus {
			continue
		}
		words := strings.Fields(row.Path)
		if !slices.ContainsFunc(cases, func(tc taskCase) bool {
			return tc.tool == row.Tool && len(tc.args) >= len(words) && slices.Equal(tc.args[:len(words)], words)
		}) {
			t.Errorf("no case runs vq %s, which the command table says fronts %s", row.Path, row.Tool)
		}
	}
	for _, tc := range cases {
		s := testkit.NewServer(t, func(c testkit.Call) testkit.Reply {
			if spec, _ := api.LookupTool(c.Tool); spec.Async {
				return testkit.Answer(200, testkit.Queued(c.Tool, "job_1")) // an async tool's start names its job
			}
			return testkit.Answer(200, answer)
		})
		if _, stderr, exit := runVQ(t, s.Env(), tc.args...); exit != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, exit, stderr)
			continue
		}
		calls := s.Calls()
		if len(calls) != 1 {
			t.Errorf("%v: %d calls, want 1", tc.args, len(calls))
			continue
		}
		sent, _ := json.Marshal(calls[0].Args)
		if calls[0].Tool != tc.tool || string(sent) != tc.sent {
			t.Errorf("%v: sent %v %s, want %s %s", tc.args, calls[0].Tool, sent, tc.tool, tc.sent)
		}
	}
}

// On a terminal the answer goes to the TUI, unless VQ_NO_TUI (or --no-tui)
// asks for plain output.
func TestNoTUIFromTheEnvironment(t *testing.T) {
	t.Parallel()
	answer := `{"ok":true,"tool":"get_run","summary":"done","data":{"runId":"r"},"warnings":[],"nextActions":[]}`
	for _, noTUI := range []string{"", "1"} {
		s := testkit.NewServer(t, testkit.Always(200, answer))
		env := s.Env()
		env["VQ_NO_TUI"] = noTUI
		stdout, stderr, exit := vqRun{Env: env, TTY: true}.run(t, "invoke", "get_run")
		if exit != 0 {
			t.Fatalf("VQ_NO_TUI=%q: exit %d: %s", noTUI, exit, stderr)
		}
		if tui := strings.Contains(stdout, "\x1b["); tui != (noTUI == "") { // the TUI styles its head
			t.Errorf("VQ_NO_TUI=%q: the TUI's screen %v in:\n%s", noTUI, tui, stdout)
		}
	}
}
