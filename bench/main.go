// Command bench measures vq against curl, a Go program that only prints,
// and the MCP Inspector CLI, side by side, and checks the goals of
// BENCHMARKS.md. It builds vq as the release does (-trimpath,
// -ldflags='-s -w'), serves the sandbox in-process and runs every
// comparison alternately (a, b, a, b, …) so both sides share the noise of
// the machine.
//
//	go run ./bench            # full: 20 runs a row, goals enforced (exit 1 on a miss)
//	go run ./bench -quick     # 3 runs a row, a 3 s watch job, goals reported only
//	go run ./bench -runs 50
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/sandbox"
)

func main() {
	if serveStdioTextIfAsked() {
		return
	}
	quick := flag.Bool("quick", false, "few runs and a short watch job; goals are reported, not enforced")
	runs := flag.Int("runs", 0, "runs of each command per comparison (default 20, 3 with -quick)")
	only := flag.String("only", "", "comma-separated rows to run: version,help,floor,invoke,invokefloor,vqfloor,mcp,mcphttp,stdio,stdiotext,json100k,plain100k,sparse,wide,tui,batch,watch,size,replay")
	flag.Parse()
	cfg := config{quick: *quick, runs: *runs, only: *only}
	if cfg.runs <= 0 {
		cfg.runs = 20
		if cfg.quick {
			cfg.runs = 3
		}
	}
	missed, broken, err := run(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	switch {
	case broken:
		// A row that could not measure is a broken vq or bench, in -quick
		// too: that is what running it in CI is for.
		os.Exit(2)
	case missed && !cfg.quick:
		os.Exit(1)
	}
}

type config struct {
	quick bool
	runs  int
	only  string // comma-separated row names; empty runs them all
}

// bench holds what every row needs: the built programs, the server and
// the environment vq runs in.
type bench struct {
	config
	root  string // module root
	tmp   string
	vq    string
	hello string
	floor string // bench/floor: vq's libraries, no vq
	// vqFloor is bench/floor built with -tags vqfloor: all of vq linked,
	// signals caught, nothing of vq's run.
	vqFloor string
	srv     *server
	env     []string // vq's environment: the sandbox, its key, no user config
	// startupPeak is vq --version's peak RSS, the base of the large answers'
	// memory goals.
	startupPeak int64
}

// trackingSteps is how many progress steps the sandbox's run_tracking job
// has; a job ends one JobStep after its last step. The watch row checks it.
const trackingSteps = 4

func run(cfg config) (missed, broken bool, err error) {
	b := &bench{config: cfg}
	if b.root, err = moduleRoot(); err != nil {
		return false, false, err
	}
	if b.tmp, err = os.MkdirTemp("", "vq-bench-"); err != nil {
		return false, false, err
	}
	defer os.RemoveAll(b.tmp)
	step("building vq, the hello program and vq's floors")
	if b.vq, err = b.build(".", "vq", "", releaseStamp); err != nil {
		return false, false, err
	}
	if b.floor, err = b.build("./bench/floor", "floor", "", ""); err != nil {
		return false, false, err
	}
	if b.vqFloor, err = b.build("./bench/floor", "vqfloor", "vqfloor", releaseStamp); err != nil {
		return false, false, err
	}
	if b.hello, err = b.buildHello(); err != nil {
		return false, false, err
	}
	if b.srv, err = startServer(b.watchJob() / (trackingSteps + 1)); err != nil {
		return false, false, err
	}
	defer b.srv.close()
	b.env = append(cleanEnv(),
		"VQ_BASE_URL="+b.srv.url,
		"VQ_API_KEY="+sandbox.KeyAdmin,
		"VQ_CONFIG="+filepath.Join(b.tmp, "no-config.json"),
		"VQ_NO_KEYRING=1",
		"HOME="+b.tmp,
		"NO_COLOR=1",
	)

	var rows []row
	for _, m := range []struct {
		name    string // for -only
		measure func() row
	}{
		{"version", func() row { return b.startup("--version") }},
		{"help", func() row { return b.startup("--help") }},
		{"floor", b.stackFloor},
		{"invoke", b.invoke},
		{"invokefloor", b.invokeFloor},
		{"vqfloor", b.callFloor},
		{"mcp", b.mcp},
		{"mcphttp", b.mcpHTTP},
		{"stdio", b.stdio},
		{"stdiotext", b.stdioText},
		{"json100k", b.big100kJSON},
		{"plain100k", b.big100kPlain},
		{"sparse", func() row { return b.shape("bench_sparse") }},
		{"wide", func() row { return b.shape("bench_wide") }},
		{"tui", b.tui},
		{"batch", b.batchApprove},
		{"watch", b.watch},
		{"size", b.binarySize},
		{"replay", b.replay},
	} {
		if cfg.only != "" && !slices.Contains(strings.Split(cfg.only, ","), m.name) {
			continue
		}
		r := m.measure()
		rows = append(rows, r)
		missed = missed || r.verdict == verdictFail
		broken = broken || r.broken
	}
	printReport(os.Stdout, b, rows)
	return missed, broken, nil
}

func step(msg string) { fmt.Fprintln(os.Stderr, "bench: "+msg) }

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run the bench inside the vq module: go run ./bench")
	}
	return filepath.Dir(mod), nil
}

// cleanEnv is the bench's environment without any VQ_ setting of the
// person running it, so their config never changes a figure.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "VQ_") {
			env = append(env, kv)
		}
	}
	return env
}

// releaseStamp is what the release build adds to -ldflags
// (.goreleaser.yaml): the version, commit and date, so that a release vq
// never reads its build information.
const releaseStamp = " -X github.com/visualq/vq/cmd.version=1.0.0 -X github.com/visualq/vq/cmd.commit=0123456789ab -X github.com/visualq/vq/cmd.date=2026-01-01T00:00:00Z"

// build builds a package of the module into the temp dir as name, with
// the release's flags, the build tags and ldflags' extra words.
func (b *bench) build(pkg, name, tags, ldflags string) (string, error) {
	out := filepath.Join(b.tmp, name)
	// As the release is built (.goreleaser.yaml): static, no cgo, so no
	// dynamic loader at start-up.
	cmd := exec.Command("go", "build", "-trimpath", "-tags="+tags, "-ldflags=-s -w"+ldflags, "-o", out, pkg)
	cmd.Dir = b.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", name, err, msg)
	}
	return out, nil
}

// helloSource is the floor of start-up: a Go program that only prints.
const helloSource = `package main

import "fmt"

func main() { fmt.Println("vq dev") }
`

func (b *bench) buildHello() (string, error) {
	dir := filepath.Join(b.tmp, "hello")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	files := map[string]string{"main.go": helloSource, "go.mod": "module hello\n\ngo 1.26\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	out := filepath.Join(b.tmp, "hello-bin")
	cmd := exec.Command("go", "build", "-ldflags=-s -w", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build hello: %v\n%s", err, msg)
	}
	return out, nil
}

func (b *bench) vqCmd(args ...string) command {
	return command{label: "vq " + strings.Join(args, " "), argv: append([]string{b.vq}, args...), env: b.env}
}

// curlInvoke is curl doing the POST vq sends for get_run_failures.
func (b *bench) curlInvoke(runID string) command {
	return b.curlCall("get_run_failures", fmt.Sprintf(`{"runId":%q}`, runID))
}

// curlCall is curl doing the POST vq sends for tool with args (JSON).
func (b *bench) curlCall(tool, args string) command {
	body := fmt.Sprintf(`{"tool":%q,"args":%s}`, tool, args)
	return command{label: "curl", env: b.env, argv: []string{"curl", "-s", "-f", "-X", "POST",
		"-H", "Authorization: Bearer " + sandbox.KeyAdmin, "-H", "Content-Type: application/json",
		"-d", body, b.srv.url + "/api/mcp/v1/invoke"}}
}

func (b *bench) startup(flagName string) row {
	what := "`vq " + flagName + "` start-up"
	step(what)
	hello := command{label: "hello", argv: []string{b.hello}}
	vq, floor, err := compare(b.vqCmd(flagName), hello, b.runs, b.rssRuns())
	if err != nil {
		return failed(what, err)
	}
	if flagName == "--version" {
		b.startupPeak = vq.rss
	}
	return ratioRow(what, "Go program that only prints", vq, floor, 2.5, 0)
}

// stackFloor sets `vq --version` against bench/floor, a program that
// links vq's libraries and only prints: the share of start-up that is vq's
// own. It has no goal of its own; it explains the start-up rows.
func (b *bench) stackFloor() row {
	return b.reference("`vq --version` against its libraries",
		"bench/floor (cobra, Charm v2 with huh, resty, gojq, MCP SDK; only prints)",
		b.vqCmd("--version"), command{label: "floor", argv: []string{b.floor}})
}

// reference is a row with no goal of its own: a set against ref, to
// explain the rows that have one.
func (b *bench) reference(what, refLabel string, a, ref command) row {
	step(what)
	sa, sref, err := compare(a, ref, b.runs, b.rssRuns())
	if err != nil {
		return failed(what, err)
	}
	r := ratioRow(what, refLabel, sa, sref, 0, 0)
	r.goal, r.verdict = "—", verdictReference
	return r
}

func (b *bench) invoke() row {
	what := "`vq invoke get_run_failures runId=run_abc --json`"
	step(what)
	vq, curl, err := compare(b.vqCmd("invoke", "get_run_failures", "runId=run_abc", "--json"), b.curlInvoke("run_abc"), b.runs, b.rssRuns())
	if err != nil {
		return failed(what, err)
	}
	return ratioRow(what, "curl, same POST", vq, curl, 1.0, 0)
}

// invokeFloor sets one invoke against bench/floor making the same call
// (its libraries linked, the POST with resty, the envelope decoded): the
// share of the call that is vq's own. Like stackFloor, a reference.
func (b *bench) invokeFloor() row {
	return b.reference("`vq invoke get_run_failures runId=run_abc --json` against its libraries",
		"bench/floor post (the same libraries; the POST with resty, the envelope decoded)",
		b.vqCmd("invoke", "get_run_failures", "runId=run_abc", "--json"),
		command{label: "floor post", argv: []string{b.floor, "post", b.srv.url}, env: b.env})
}

// callFloor sets one call made by vq's own binary, and nothing of vq's
// command path, against curl: bench/floor built with -tags vqfloor links
// all of vq (its packages' inits and its size), catches SIGINT and SIGTERM
// as every vq call must, and makes the POST of the invoke row. It is the
// floor under the invoke goal; the invoke row is vq over it.
func (b *bench) callFloor() row {
	return b.reference("one call in vq's own binary, none of vq's command path", "curl, same POST",
		command{label: "vq floor post", argv: []string{b.vqFloor, "post", b.srv.url}, env: b.env},
		b.curlInvoke("run_abc"))
}

func (b *bench) big100kJSON() row {
	what := "100k failures `--json` to a pipe"
	step(what)
	vq, curl, err := compare(b.vqCmd("invoke", "get_run_failures", "runId=run_100k", "--json"), b.curlInvoke("run_100k"), b.runs, b.rssRuns())
	if err != nil {
		return failed(what, err)
	}
	return ratioRow(what, "curl", vq, curl, 1.5, b.answerBound(curl, 2))
}

func (b *bench) big100kPlain() row {
	what := "100k failures plain table"
	step(what)
	vq, curl, err := compare(b.vqCmd("invoke", "get_run_failures", "runId=run_100k"), b.curlInvoke("run_100k"), b.runs, b.rssRuns())
	if err != nil {
		return failed(what, err)
	}
	return ratioRow(what, "curl", vq, curl, 3, b.answerBound(curl, 3))
}

// answerBound is the peak RSS a large answer may take: vq's own start-up
// peak plus times the answer's size (the bytes curl printed); -1, which
// fails the row, when either is unknown.
func (b *bench) answerBound(curl series, times int64) int64 {
	if b.startupPeak == 0 {
		rss, err := b.vqCmd("--version").peakRSS(b.rssRuns())
		if err != nil {
			step("start-up peak RSS: " + err.Error())
		}
		b.startupPeak = rss
	}
	if b.startupPeak == 0 || len(curl.samples) == 0 {
		return -1
	}
	return b.startupPeak + times*curl.samples[0].out
}

func (b *bench) binarySize() row {
	what := "binary size (`-s -w`)"
	fi, err := os.Stat(b.vq)
	if err != nil {
		return failed(what, err)
	}
	const limit = 20 << 20
	return row{what: what, vq: mib(fi.Size()), goal: "≤ 20 MB", verdict: verdictOf(fi.Size() <= limit)}
}

// rssRuns is how many extra runs each command gets to find its peak RSS.
func (b *bench) rssRuns() int {
	if b.quick {
		return 1
	}
	return 3
}

// watchJob is how long the watched job runs: a minute, as the goal says,
// or a few seconds in quick mode.
func (b *bench) watchJob() time.Duration {
	if b.quick {
		return 3 * time.Second
	}
	return 60 * time.Second
}

// watch starts a run_tracking job and times `vq watch` on it: how long after
// the job's end vq exits, and how many polls it sent.
func (b *bench) watch() row {
	what := fmt.Sprintf("`vq watch` of a %s job", b.watchJob())
	step(what + " (takes that long)")
	client := api.New(api.Options{BaseURL: b.srv.url, APIKey: sandbox.KeyAdmin, UserAgent: benchUserAgent})
	ctx := context.Background()
	// The job cannot start before this instant, so lateness measured from
	// here is never flattering.
	t0 := time.Now()
	resp, err := client.Invoke(ctx, api.Call{Tool: "run_tracking"})
	jobID, accepted := api.AcceptedJob(resp)
	if err != nil || !accepted {
		return failed(what, fmt.Errorf("run_tracking: %s %s", resp.ErrorCode(), resp.ErrorMessage()))
	}
	status, err := client.Invoke(ctx, api.JobStatusCall(jobID))
	job, ok := api.ParseJobStatus(status)
	if err != nil || !ok || job.Progress == nil || job.Progress.Total != trackingSteps {
		return failed(what, fmt.Errorf("the sandbox's run_tracking no longer has %d steps; update trackingSteps", trackingSteps))
	}
	end := t0.Add(b.watchJob())
	if _, err := b.vqCmd("watch", jobID).run(); err != nil {
		return failed(what, err)
	}
	late := time.Since(end)
	polls := b.srv.pollsOf(jobID)
	return row{
		what:    what,
		vq:      fmt.Sprintf("noticed %s late, %d polls", ms(late), polls),
		goal:    "≤ 1.5 s late, ≤ 25 polls",
		verdict: verdictOf(late <= 1500*time.Millisecond && polls <= 25),
	}
}
