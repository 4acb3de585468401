package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/visualq/vq/internal/fixture"
	"github.com/visualq/vq/sandbox"
)

// batchChecks is run_big's failures: the batch approves them all.
const batchChecks = 350

// batchApprove approves every run_big failure with one vq approve against
// a sandbox of its own at the sandbox's default rate limit (the bench's
// shared one has none), counting on the server how often each check was
// acted on: a 429 refusal acts on nothing, any other answer does.
func (b *bench) batchApprove() row {
	what := fmt.Sprintf("`vq approve` of %d run_big checks at the sandbox's rate limit", batchChecks)
	step(what + " (takes the limit's time)")
	acted := map[string]int{}
	var mu sync.Mutex
	sb := sandbox.New(sandbox.Options{})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		sb.Handler().ServeHTTP(rec, r)
		var call struct {
			Tool string
			Args struct{ ScenarioLabel, Viewport string }
		}
		if json.Unmarshal(body, &call) == nil && call.Tool == "approve_vrt_results" && rec.status != http.StatusTooManyRequests {
			mu.Lock()
			acted[call.Args.ScenarioLabel+"/"+call.Args.Viewport]++
			mu.Unlock()
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return failed(what, err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // Serve ends with ErrServerClosed on close.
	defer srv.Close()

	args := []string{"approve", "run_big", "--yes", "--json"}
	for _, c := range fixture.Checks(batchChecks) {
		args = append(args, "--scenario", c.ScenarioLabel, "--viewport", c.Viewport)
	}
	cmd := b.vqCmd(args...)
	cmd.label = "vq approve run_big (350 pairs)"
	cmd.env = replaceEnv(b.env, "VQ_BASE_URL", "http://"+ln.Addr().String())
	s, err := cmd.run()
	if err != nil {
		return failed(what, err)
	}
	dup, lost := 0, 0
	for _, c := range fixture.Checks(batchChecks) {
		switch n := acted[c.ScenarioLabel+"/"+c.Viewport]; {
		case n == 0:
			lost++
		case n > 1:
			dup += n - 1
		}
	}
	const rate = 20 // the sandbox's default, calls per second per key
	floor := time.Duration(float64(batchChecks) / rate * float64(time.Second))
	return row{
		what:    what,
		vq:      fmt.Sprintf("%.1f s, %d duplicates, %d lost", s.wall.Seconds(), dup, lost),
		against: fmt.Sprintf("calls ÷ rate: %.1f s", floor.Seconds()),
		ratio:   fmt.Sprintf("%.2f×", s.wall.Seconds()/floor.Seconds()),
		goal:    "0 duplicates, 0 lost",
		verdict: verdictOf(dup == 0 && lost == 0),
	}
}

// statusRecorder keeps the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// replaceEnv is env with key set to value.
func replaceEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}
