package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/visualq/vq/sandbox"
)

// benchUserAgent marks the bench's own calls, so the poll counter only
// counts what vq sent.
const benchUserAgent = "vq-bench"

// server is the sandbox, served with a counter of the get_job_status polls
// vq sends for each job.
type server struct {
	url  string
	http *http.Server

	mu    sync.Mutex
	polls map[string]int // jobId → get_job_status calls from vq
}

// startServer serves a sandbox with its rate limiter off (the bench calls
// far faster than any person) and the given job step, and the answers of
// shapeAnswers.
func startServer(jobStep time.Duration) (*server, error) {
	sb := sandbox.New(sandbox.Options{Rate: -1, JobStep: jobStep})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{url: "http://" + ln.Addr().String(), polls: map[string]int{}}
	s.http = &http.Server{Handler: s.counting(shapes(sb.Handler())), ReadHeaderTimeout: 10 * time.Second}
	go s.http.Serve(ln) //nolint:errcheck // Serve ends with ErrServerClosed on close.
	return s, nil
}

func (s *server) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.http.Shutdown(ctx) //nolint:errcheck // the bench is ending either way.
}

// counting records vq's get_job_status calls by job id; every request is
// passed on unchanged.
func (s *server) counting(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/invoke") && r.UserAgent() != benchUserAgent {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var call struct {
				Tool string `json:"tool"`
				Args struct {
					JobID string `json:"jobId"`
				} `json:"args"`
			}
			if json.Unmarshal(body, &call) == nil && call.Tool == "get_job_status" {
				s.mu.Lock()
				s.polls[call.Args.JobID]++
				s.mu.Unlock()
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *server) pollsOf(jobID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.polls[jobID]
}
