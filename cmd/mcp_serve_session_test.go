package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/testkit"
)

// concurrencyServer answers every invoke call after a while, counting the
// requests in flight and the connections open at once.
type concurrencyServer struct {
	*httptest.Server
	mu                                   sync.Mutex
	inFlight, maxInFlight, open, maxOpen int
}

func newConcurrencyServer(t *testing.T) *concurrencyServer {
	testkit.NoLeaks(t)
	s := &concurrencyServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var call api.Call
		json.NewDecoder(r.Body).Decode(&call)
		s.mu.Lock()
		s.inFlight++
		s.maxInFlight = max(s.maxInFlight, s.inFlight)
		s.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
		if r.URL.Path != api.InvokePath {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, testkit.OK(call.Tool, "done", map[string]any{}))
	}))
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch state {
		case http.StateNew:
			s.open++
			s.maxOpen = max(s.maxOpen, s.open)
		case http.StateClosed, http.StateHijacked:
			s.open--
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// 3000 concurrent calls opened about 1400 connections to the server at
// once: now they wait their turn, and every one is answered.
func TestMCPServeBoundsConcurrentBackendCalls(t *testing.T) {
	t.Parallel()
	ctx := testkit.Bound(t)
	srv := newConcurrencyServer(t)
	s := serveVQ(t, map[string]string{"VQ_BASE_URL": srv.URL, "VQ_API_KEY": testkit.DefaultKey})
	s.tools(t)
	const calls = 300
	errs := make(chan error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: api.ToolRunFailures, Arguments: map[string]any{"runId": fmt.Sprint("run_", i)}})
			if err == nil && res.IsError {
				err = fmt.Errorf("error answer: %s", resultText(res))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.maxInFlight > maxBackendCalls || srv.maxOpen > 2*maxBackendCalls {
		t.Errorf("%d requests in flight and %d connections open at once; want at most %d and %d", srv.maxInFlight, srv.maxOpen, maxBackendCalls, 2*maxBackendCalls)
	}
	if srv.maxInFlight < 2 {
		t.Errorf("%d request in flight at most: the calls did not run concurrently at all", srv.maxInFlight)
	}
}
