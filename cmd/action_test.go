package cmd

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/visualq/vq/cmd/cmdtest"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/testkit"
	"github.com/visualq/vq/sandbox"
)

// actionScript is the GitHub Action's step (action.yml runs it).
const actionScript = "../scripts/action/install-and-run.sh"

// releaseServer stands in for github.com: the release downloads of
// visualq/vq (an archive per version, named as .goreleaser.yaml names
// them, and checksums.txt) and its tags (git's dumb HTTP info/refs), served
// from a directory. It records the paths it was asked for.
type releaseServer struct {
	*httptest.Server
	root string
	mu   sync.Mutex
	got  []string
	// latest is the release releases/latest redirects to ("" none).
	latest string
}

func newReleaseServer(t *testing.T) *releaseServer {
	t.Helper()
	checkedInThePlainRun(t) // the scripts are shell; vq is only archived
	s := &releaseServer{root: t.TempDir()}
	files := http.FileServer(http.Dir(s.root))
	s.Server = testkit.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.got = append(s.got, r.URL.Path)
		latest := s.latest
		s.mu.Unlock()
		if r.URL.Path == "/visualq/vq/releases/latest" && latest != "" {
			http.Redirect(w, r, s.URL+"/visualq/vq/releases/tag/v"+latest, http.StatusFound)
			return
		}
		files.ServeHTTP(w, r)
	}))
	return s
}

func (s *releaseServer) requested() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

// archiveName is the release archive of this machine, as goreleaser names
// it: vq_VERSION_OS_ARCH.tar.gz.
func archiveName(version string) string {
	return fmt.Sprintf("vq_%s_%s_%s.tar.gz", version, runtime.GOOS, runtime.GOARCH)
}

// release publishes version: an archive holding binary as vq (with the
// files goreleaser adds) and checksums.txt listing it. tamper changes the
// archive after its digest was listed.
func (s *releaseServer) release(t *testing.T, version, binary string, tamper bool) {
	t.Helper()
	bin, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	s.publish(t, version, tamper, &tar.Header{Name: "vq", Mode: 0o755}, bin)
}

// publish publishes version: an archive holding vq (its header, and the
// body of a regular file) with the files goreleaser adds, and
// checksums.txt listing it. tamper changes the archive after its digest
// was listed.
func (s *releaseServer) publish(t *testing.T, version string, tamper bool, vq *tar.Header, body []byte) {
	t.Helper()
	var archive bytes.Buffer
	gz := gzip.NewWriter(&archive)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		hdr  *tar.Header
		body []byte
	}{{vq, body}, {&tar.Header{Name: "README.md", Mode: 0o644}, []byte("# vq\n")}, {&tar.Header{Name: "LICENSE", Mode: 0o644}, []byte("Apache-2.0\n")}} {
		f.hdr.ModTime, f.hdr.Size = time.Unix(0, 0), int64(len(f.body))
		tw.WriteHeader(f.hdr)
		tw.Write(f.body)
	}
	tw.Close()
	gz.Close()
	sum := sha256.Sum256(archive.Bytes())
	dir := filepath.Join(s.root, "visualq", "vq", "releases", "download", "v"+version)
	os.MkdirAll(dir, 0o755)
	checksums := fmt.Sprintf("%s  vq_%s_windows_arm64.zip\n%s  %s\n", strings.Repeat("0", 64), version, hex.EncodeToString(sum[:]), archiveName(version))
	os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(checksums), 0o644)
	if tamper {
		archive.Write([]byte("more"))
	}
	os.WriteFile(filepath.Join(dir, archiveName(version)), archive.Bytes(), 0o644)
}

// tags publishes the repository's tags as git ls-remote reads them over
// HTTP: tag name to commit.
func (s *releaseServer) tags(t *testing.T, tags map[string]string) {
	t.Helper()
	var refs strings.Builder
	for _, name := range slices.Sorted(maps.Keys(tags)) {
		fmt.Fprintf(&refs, "%s\trefs/tags/%s\n", tags[name], name)
	}
	dir := filepath.Join(s.root, "visualq", "vq", "info")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "refs"), []byte(refs.String()), 0o644)
}

// runner is a GitHub Actions runner's environment for the action's step:
// the GITHUB_* and RUNNER_* variables, files of its own, a tool cache.
type runner struct {
	dir string
	env map[string]string
}

func newRunner(t *testing.T, releases *releaseServer, server *cmdtest.Sandbox) *runner {
	t.Helper()
	osName := map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS]
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	if osName == "" || arch == "" {
		t.Skipf("no release archive is built for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	for _, tool := range []string{"bash", "curl", "tar", "git", "xargs"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the action's script needs %s", tool)
		}
	}
	dir := t.TempDir()
	for _, d := range []string{"temp", "toolcache", "work", "home"} {
		os.Mkdir(filepath.Join(dir, d), 0o755)
	}
	return &runner{dir: dir, env: map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": filepath.Join(dir, "home"),
		"GITHUB_ACTIONS": "true", "CI": "true", "RUNNER_OS": osName, "RUNNER_ARCH": arch,
		"RUNNER_TEMP": filepath.Join(dir, "temp"), "RUNNER_TOOL_CACHE": filepath.Join(dir, "toolcache"),
		"GITHUB_OUTPUT": filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_PATH": filepath.Join(dir, "path"), "GITHUB_WORKSPACE": filepath.Join(dir, "work"),
		"VQ_ACTION_GITHUB_URL": releases.URL, "VQ_ACTION_REPOSITORY": "visualq/vq", "VQ_ACTION_REF": "v1",
		"VQ_API_KEY": sandbox.KeyAdmin, "VQ_ACTION_BASE_URL": server.URL,
		"VQ_NO_KEYRING": "1", "VQ_CONFIG": filepath.Join(dir, "home", "config.json"),
	}}
}

// step runs the action's script as the action's step does, with the inputs
// given (VQ_ACTION_ARGS, ...) over the runner's environment, in a fresh
// set of output files.
func (r *runner) step(t *testing.T, inputs map[string]string) (stdout, stderr string, exit int) {
	t.Helper()
	for _, f := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_PATH"} {
		os.Remove(r.env[f])
	}
	cmd := exec.Command("bash", actionScript)
	cmd.Dir = r.env["GITHUB_WORKSPACE"]
	abs, _ := filepath.Abs(actionScript)
	cmd.Args[1] = abs
	for k, v := range r.env {
		if _, set := inputs[k]; !set {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, v := range inputs {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

func (r *runner) outputs(t *testing.T) map[string]string {
	t.Helper()
	return readStepOutputs(t, r.env["GITHUB_OUTPUT"])
}

// The action's script, run as the action's step with a runner's GITHUB_*
// variables against the sandbox: it installs vq from the release archive
// of the action's tag (v1, the same commit as v1.2.3), verified against
// checksums.txt, runs ci run-vrt ... --wait, writes the step outputs, the
// JUnit file and the step summary, and exits with vq's code for a passing,
// a failing, an errored and a cancelled run; the later steps use the
// cached install.
func TestGitHubActionRunsVQ(t *testing.T) {
	t.Parallel()
	releases := newReleaseServer(t)
	releases.release(t, "1.2.3", vqBinary(t), false)
	releases.tags(t, map[string]string{"v1": "1111111111111111111111111111111111111111", "v1.2.3": "1111111111111111111111111111111111111111",
		"v1.2.2": "2222222222222222222222222222222222222222"})
	server := newCISandbox(t, time.Millisecond)
	r := newRunner(t, releases, server)
	junit := filepath.Join(r.env["GITHUB_WORKSPACE"], "reports", "vq.xml")
	archive := "/visualq/vq/releases/download/v1.2.3/" + archiveName("1.2.3")

	for i, tc := range []struct {
		branch, status, failed string
		exit                   int
		annotation             string
	}{
		{"main", "passed", "0", 0, "::notice title=Visual run run_ci_0001::run run_ci_0001 passed: 12 checks\n"},
		{"feature/new-header", "failed", "3", exitcode.RunFailed, "::error title=Visual change%3A Homepage [desktop]::"},
		{"broken", "error", "0", exitcode.RunError, "::error title=Visual run run_ci_0003::run run_ci_0003 ended in error"},
		{"cancelled", "cancelled", "0", exitcode.RunCancelled, "::warning title=Visual run run_ci_0004::run run_ci_0004 was cancelled"},
	} {
		t.Run(tc.branch, func(t *testing.T) {
			stdout, stderr, exit := r.step(t, map[string]string{
				"VQ_ACTION_COMMAND": "ci run-vrt", "VQ_ACTION_BRANCH": tc.branch, "VQ_ACTION_WAIT": "true",
				"VQ_ACTION_ARGS": "--interval 20ms", "VQ_ACTION_JUNIT": junit})
			if exit != tc.exit {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", exit, tc.exit, stdout, stderr)
			}
			installs := strings.Count(strings.Join(releases.requested(), "\n"), archive)
			if i == 0 && (installs != 1 || !strings.Contains(stderr, "vq action: installing vq 1.2.3 ("+archiveName("1.2.3")+") from "+releases.URL+"/visualq/vq/releases/download/v1.2.3\n")) {
				t.Errorf("first step: %d downloads of the archive\n%s", installs, stderr)
			}
			if i > 0 && (installs != 1 || !strings.Contains(stderr, "vq action: vq 1.2.3 from the tool cache\n")) {
				t.Errorf("later steps use the cache: %d downloads\n%s", installs, stderr)
			}
			runID := fmt.Sprintf("run_ci_%04d", i+1)
			want := map[string]string{"run-id": runID, "url": server.URL + "/sandbox/runs/" + runID, "status": tc.status,
				"failed": tc.failed, "total": "12", "exit-code": fmt.Sprint(tc.exit)}
			if got := r.outputs(t); !maps.Equal(got, want) {
				t.Errorf("outputs %v\nwant    %v", got, want)
			}
			if !strings.Contains(stdout, tc.annotation) {
				t.Errorf("stdout lacks %q:\n%s", tc.annotation, stdout)
			}
			if summary, _ := os.ReadFile(r.env["GITHUB_STEP_SUMMARY"]); !strings.HasPrefix(string(summary), "### ") {
				t.Errorf("step summary:\n%s", summary)
			}
			report, err := os.ReadFile(junit)
			if err != nil || !strings.Contains(string(report), `<testsuite name="vq visual checks"`) {
				t.Fatalf("JUnit report: %v\n%.300s", err, report)
			}
			testkit.ValidJUnit(t, report)
			cache := filepath.Join(r.env["RUNNER_TOOL_CACHE"], "vq", "1.2.3", runtime.GOOS+"_"+runtime.GOARCH)
			if path, _ := os.ReadFile(r.env["GITHUB_PATH"]); string(path) != cache+"\n" {
				t.Errorf("GITHUB_PATH %q, want the install %q", path, cache)
			}
		})
	}
}

// An archive whose digest is not the one checksums.txt lists is never
// run: the step fails with one line, sends nothing and caches nothing.
func TestGitHubActionRefusesATamperedArchive(t *testing.T) {
	t.Parallel()
	releases := newReleaseServer(t)
	releases.release(t, "1.2.4", vqBinary(t), true)
	server := newCISandbox(t, time.Millisecond)
	r := newRunner(t, releases, server)
	_, stderr, exit := r.step(t, map[string]string{"VQ_ACTION_ARGS": "ci run-vrt --wait", "VQ_ACTION_VERSION": "v1.2.4"})
	if exit != 1 || !strings.Contains(stderr, "vq action: refusing "+archiveName("1.2.4")+": its SHA-256 ") {
		t.Errorf("exit %d\n%s", exit, stderr)
	}
	if got := server.Received(api.ToolRunVRT); len(got) != 0 {
		t.Errorf("the tampered vq ran: %q", got)
	}
	if r.outputs(t)["exit-code"] != "1" {
		t.Errorf("outputs %v", r.outputs(t))
	}
	if entries, _ := os.ReadDir(filepath.Join(r.env["RUNNER_TOOL_CACHE"], "vq", "1.2.4")); len(entries) != 0 {
		t.Errorf("the tool cache keeps %v", entries)
	}
}

// An archive whose vq is a link, its digest the one listed, is refused
// before it is unpacked: chmod +x never reaches the file the link names
// (which the step would then have run), nothing runs, nothing is cached.
func TestGitHubActionRefusesALinkInTheArchive(t *testing.T) {
	t.Parallel()
	releases := newReleaseServer(t)
	outside := filepath.Join(t.TempDir(), "outside")
	os.WriteFile(outside, []byte("#!/bin/sh\necho ran the file outside\n"), 0o644)
	releases.publish(t, "1.2.6", false, &tar.Header{Name: "vq", Typeflag: tar.TypeSymlink, Linkname: outside, Mode: 0o777}, nil)
	releases.publish(t, "1.2.7", false, &tar.Header{Name: "vq", Typeflag: tar.TypeLink, Linkname: "README.md", Mode: 0o755}, nil)
	server := newCISandbox(t, time.Millisecond)
	r := newRunner(t, releases, server)
	for _, version := range []string{"1.2.6", "1.2.7"} {
		stdout, stderr, exit := r.step(t, map[string]string{"VQ_ACTION_ARGS": "ci run-vrt --wait", "VQ_ACTION_VERSION": version})
		if want := "vq action: refusing " + archiveName(version) + ": its vq is not a regular file (a link, or missing)\n"; exit != 1 || !strings.HasSuffix(stderr, want) {
			t.Errorf("%s: exit %d\n%s%s\nwant the line %q", version, exit, stdout, stderr, want)
		}
		if r.outputs(t)["exit-code"] != "1" {
			t.Errorf("%s: outputs %v", version, r.outputs(t))
		}
		if entries, _ := os.ReadDir(filepath.Join(r.env["RUNNER_TOOL_CACHE"], "vq", version)); len(entries) != 0 {
			t.Errorf("%s: the tool cache keeps %v", version, entries)
		}
	}
	if info, err := os.Stat(outside); err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("the file outside the archive is now %v (%v)", info.Mode(), err)
	}
	if got := server.Received(api.ToolRunVRT); len(got) != 0 {
		t.Errorf("sent %q", got)
	}
}

// A runner with no release archive, a ref that is no release and empty
// inputs each end the step with one line saying so.
func TestGitHubActionSaysWhyItCannotRun(t *testing.T) {
	t.Parallel()
	releases := newReleaseServer(t)
	releases.tags(t, map[string]string{"v1": "1111111111111111111111111111111111111111"})
	server := newCISandbox(t, time.Millisecond)
	r := newRunner(t, releases, server)
	for _, tc := range []struct {
		inputs map[string]string
		says   string
	}{
		{map[string]string{"RUNNER_ARCH": "X86", "VQ_ACTION_ARGS": "ci run-vrt"},
			"vq action: vq has no release archive for " + r.env["RUNNER_OS"] + " on X86 (there are archives for Linux, macOS and Windows on X64 and ARM64)\n"},
		{map[string]string{"VQ_ACTION_REF": "main", "VQ_ACTION_ARGS": "ci run-vrt"},
			"vq action: 'main' is no tag of visualq/vq: set the version input (such as version: 1.4.2)\n"},
		{map[string]string{"VQ_ACTION_ARGS": "ci run-vrt"},
			"vq action: 'v1' is no release of visualq/vq: set the version input (such as version: 1.4.2)\n"},
		{map[string]string{"VQ_ACTION_ARGS": "ci run-vrt", "VQ_ACTION_VERSION": "latest"},
			"vq action: version 'latest' is not a release version (such as 1.4.2)\n"},
		{map[string]string{"VQ_ACTION_ARGS": " \n"}, "vq action: the command and args inputs are empty (such as command: ci run-vrt)\n"},
		{map[string]string{"VQ_ACTION_COMMAND": "ci run-vrt; id"}, "vq action: the command input is not a vq command (such as command: ci run-vrt)\n"},
		{map[string]string{"VQ_ACTION_COMMAND": "ci run-vrt", "VQ_ACTION_WAIT": "yes"}, "vq action: the wait input is neither true nor false\n"},
		{map[string]string{"VQ_ACTION_ARGS": "ci run-vrt", "VQ_API_KEY": ""},
			"vq action: the api-key input is empty (such as api-key: ${{ secrets.VQ_API_KEY }}; a pull request from a fork gets no secrets)\n"},
	} {
		_, stderr, exit := r.step(t, tc.inputs)
		if exit != 1 || stderr != tc.says {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant:\n%s", tc.inputs, exit, stderr, tc.says)
		}
	}
	_, stderr, exit := r.step(t, map[string]string{"VQ_ACTION_ARGS": "ci run-vrt", "VQ_ACTION_VERSION": "9.9.9"})
	if want := "vq action: cannot download " + releases.URL + "/visualq/vq/releases/download/v9.9.9/" + archiveName("9.9.9") + "\n"; exit != 1 || !strings.HasSuffix(stderr, want) {
		t.Errorf("a release that does not exist: exit %d\n%s", exit, stderr)
	}
	if got := server.Received(api.ToolRunVRT); len(got) != 0 {
		t.Errorf("sent %q", got)
	}
}

// The args input is split into words as a shell splits them and never
// expanded or run; the key reaches vq in its environment, never as an
// argument; the step exits with the code vq exits with.
func TestGitHubActionPassesArgumentsAsWords(t *testing.T) {
	t.Parallel()
	server := newCISandbox(t, time.Millisecond)
	r := argvRunner(t, "1.2.5", server, "printf '%s' \"$VQ_API_KEY|$VQ_BASE_URL\" > \"$RUNNER_TEMP/env\"\nexit 42")
	_, stderr, exit := r.step(t, map[string]string{
		"VQ_ACTION_ARGS":  `ci run-vrt 'branch=a b' "commit=$(touch pwned)" tag=\$HOME --wait`,
		"VQ_ACTION_JUNIT": "out dir/vq.xml", "VQ_ACTION_VERSION": "1.2.5"})
	if exit != 42 || r.outputs(t)["exit-code"] != "42" {
		t.Errorf("exit %d, outputs %v\n%s", exit, r.outputs(t), stderr)
	}
	argv := r.argv(t)
	want := "ci\nrun-vrt\nbranch=a b\ncommit=$(touch pwned)\ntag=$HOME\n--wait\n--junit\nout dir/vq.xml\n"
	if argv != want {
		t.Errorf("argv:\n%s\nwant:\n%s", argv, want)
	}
	if _, err := os.Stat(filepath.Join(r.env["GITHUB_WORKSPACE"], "pwned")); err == nil {
		t.Error("the args input ran a command")
	}
	if env, _ := os.ReadFile(filepath.Join(r.env["RUNNER_TEMP"], "env")); string(env) != sandbox.KeyAdmin+"|"+server.URL {
		t.Errorf("vq's environment: %q", env)
	}
	_, stderr, exit = r.step(t, map[string]string{"VQ_ACTION_ARGS": `ci run-vrt 'branch=x`, "VQ_ACTION_VERSION": "1.2.5"})
	if exit != 1 || !strings.HasSuffix(stderr, "from the tool cache\nvq action: cannot split the args input into words (an unmatched quote?)\n") {
		t.Errorf("unmatched quote: exit %d\n%s", exit, stderr)
	}
}

// argvRunner is a runner on server whose release version is a fake vq: a
// script that writes its words to $RUNNER_TEMP/argv, one a line, then runs
// rest.
func argvRunner(t *testing.T, version string, server *cmdtest.Sandbox, rest string) *runner {
	t.Helper()
	fake := filepath.Join(t.TempDir(), "vq")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$RUNNER_TEMP/argv\"\n"+rest+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	releases := newReleaseServer(t)
	releases.release(t, version, fake, false)
	return newRunner(t, releases, server)
}

// argv is what the fake vq of argvRunner was given, one word a line.
func (r *runner) argv(t *testing.T) string {
	t.Helper()
	argv, err := os.ReadFile(filepath.Join(r.env["RUNNER_TEMP"], "argv"))
	if err != nil {
		t.Fatalf("the fake vq did not run: %v", err)
	}
	return string(argv)
}

// The typed inputs reach vq as words exactly as given, never re-split: a
// branch with ' and " is one branch=VALUE argument; args adds the rest.
func TestGitHubActionTakesTypedInputs(t *testing.T) {
	t.Parallel()
	r := argvRunner(t, "1.2.6", newCISandbox(t, time.Millisecond), "exit 0")
	_, stderr, exit := r.step(t, map[string]string{
		"VQ_ACTION_COMMAND": "ci run-vrt", "VQ_ACTION_BRANCH": `it's-"quoted" $(touch pwned)`, "VQ_ACTION_COMMIT": "0123abc",
		"VQ_ACTION_WAIT": "true", "VQ_ACTION_ARGS": "--save-dir 'vq diffs' --exit-zero-on-changes", "VQ_ACTION_VERSION": "1.2.6"})
	if exit != 0 {
		t.Fatalf("exit %d\n%s", exit, stderr)
	}
	argv := r.argv(t)
	want := "ci\nrun-vrt\nbranch=it's-\"quoted\" $(touch pwned)\ncommit=0123abc\n--wait\n--save-dir\nvq diffs\n--exit-zero-on-changes\n"
	if argv != want {
		t.Errorf("argv:\n%s\nwant:\n%s", argv, want)
	}
	if _, err := os.Stat(filepath.Join(r.env["GITHUB_WORKSPACE"], "pwned")); err == nil {
		t.Error("the branch input ran a command")
	}
}
