package main

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/visualq/vq/sandbox"
)

// replay sets a recorded run served back (vq sandbox --replay) against the
// live sandbox it was recorded from, for the same command: what testing a
// team's scripts offline costs them per call.
func (b *bench) replay() row {
	what := "`vq failures run_abc --json` replayed from a recording"
	step(what)
	live := b.vqCmd("failures", "run_abc", "--json")
	dir := filepath.Join(b.tmp, "recording")
	rec, err := sandbox.Record(sandbox.Options{}, dir, b.srv.url, func(msg string) { step("recording: " + msg) })
	if err != nil {
		return failed(what, err)
	}
	_, err = withEnv(live, "VQ_BASE_URL="+rec.URL()).run()
	rec.Close()
	if err != nil {
		return failed(what, err)
	}
	rep, err := sandbox.Replay(sandbox.Options{}, dir)
	if err != nil {
		return failed(what, err)
	}
	defer rep.Close()
	replayed := withEnv(live, "VQ_BASE_URL="+rep.URL(), "VQ_API_KEY=any-key")
	vq, sb, err := compare(replayed, live, b.runs, b.rssRuns())
	if err != nil {
		return failed(what, err)
	}
	return ratioRow(what, "the live sandbox", vq, sb, 1.2, 0)
}

// withEnv is c with the variables of settings in place of its own.
func withEnv(c command, settings ...string) command {
	c.env = slices.DeleteFunc(slices.Clone(c.env), func(kv string) bool {
		return slices.ContainsFunc(settings, func(s string) bool {
			name, _, _ := strings.Cut(s, "=")
			return strings.HasPrefix(kv, name+"=")
		})
	})
	c.env = append(c.env, settings...)
	return c
}
