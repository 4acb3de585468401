package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/visualq/vq/internal/fixture"
)

// shapeAnswers are the record lists whose layout once grew with rows ×
// columns (see fixture), served by the bench's server under tool names of
// their own: 100,000 records each with a key of its own, and one record of
// 100,000 keys.
var shapeAnswers = map[string][]byte{
	"bench_sparse": fixture.Sparse(100_000),
	"bench_wide":   fixture.Wide(100_000),
}

// shapes answers an invoke of a shapeAnswers tool with its answer; every
// other request goes to next.
func shapes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/invoke") {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var call struct {
				Tool string `json:"tool"`
			}
			if json.Unmarshal(body, &call) == nil {
				if answer, ok := shapeAnswers[call.Tool]; ok {
					w.Header().Set("Content-Type", "application/json")
					w.Write(answer)
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// shapeOutputBound is how many times its answer vq's plain output of a
// shape may be, and shapeRSSLimit its peak RSS (the runtime's floor and
// the fields of 100,000 members), where printing rows × columns once
// wrote 79 GB. Time is shown against curl without a goal: these answers
// are laid out as fields, which costs more per byte than the table rows.
const (
	shapeOutputBound = 8
	shapeRSSLimit    = 96 << 20
)

// shape times vq's plain output of a shapeAnswers tool against curl
// fetching it, and checks what vq wrote and its peak RSS.
func (b *bench) shape(tool string) row {
	answer := shapeAnswers[tool]
	what := fmt.Sprintf("`vq invoke %s` plain (%.1f MB answer)", tool, float64(len(answer))/1e6)
	step(what)
	vq, curl, err := compare(b.vqCmd("invoke", tool), b.curlCall(tool, "{}"), b.runs, b.rssRuns())
	if err != nil {
		return failed(what, err)
	}
	written := vq.samples[0].out
	return row{
		what:    what,
		vq:      spread(vq),
		against: "curl: " + spread(curl),
		ratio:   fmt.Sprintf("%.2f×", float64(vq.median())/float64(curl.median())),
		rss:     mib(vq.rss) + " / " + mib(curl.rss),
		goal:    fmt.Sprintf("output ≤ %d× the answer, RSS ≤ %s", shapeOutputBound, mib(shapeRSSLimit)),
		verdict: verdictOf(written <= shapeOutputBound*int64(len(answer)) && vq.rss > 0 && vq.rss <= shapeRSSLimit),
		note:    fmt.Sprintf("wrote %d bytes, %.2f× the answer", written, float64(written)/float64(len(answer))),
	}
}
