package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpHTTP compares one tools/call to vq mcp serve over streamable HTTP with
// the same call over stdio: each server started once and its session opened
// by the Go SDK's client, then the calls made alternately (HTTP, stdio, …),
// timed from request to answer. Diff images are left out on both sides
// (--no-images), so the row measures the transport, not the image fetches.
func (b *bench) mcpHTTP() row {
	what := "one `tools/call` to `vq mcp serve --http` (streamable HTTP, the SDK's client)"
	step(what)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	stdioServer := exec.Command(b.vq, "mcp", "serve", "--no-images")
	stdioServer.Env = b.env
	stdio, err := client.Connect(ctx, &mcp.CommandTransport{Command: stdioServer}, nil)
	if err != nil {
		return failed(what, fmt.Errorf("vq mcp serve on stdio: %w", err))
	}
	defer stdio.Close()
	endpoint, stop, err := b.startHTTPServe()
	if err != nil {
		return failed(what, err)
	}
	defer stop()
	overHTTP, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		return failed(what, fmt.Errorf("vq mcp serve --http: %w", err))
	}
	defer overHTTP.Close()
	var h, s series
	for i := -1; i < b.runs; i++ { // i == -1 is the warm-up
		x, err := timedCall(ctx, overHTTP)
		if err != nil {
			return failed(what, fmt.Errorf("over HTTP: %w", err))
		}
		y, err := timedCall(ctx, stdio)
		if err != nil {
			return failed(what, fmt.Errorf("over stdio: %w", err))
		}
		if i >= 0 {
			h.samples, s.samples = append(h.samples, x), append(s.samples, y)
		}
	}
	r := ratioRow(what, "the same call to `vq mcp serve` on stdio", h, s, 2, 0)
	r.rss = ""
	return r
}

// startHTTPServe starts vq mcp serve --http on a free loopback port: the
// endpoint it prints, and its stop (Ctrl-C, then the wait).
func (b *bench) startHTTPServe() (string, func(), error) {
	c := exec.Command(b.vq, "mcp", "serve", "--no-images", "--http", "127.0.0.1:0")
	c.Env = b.env
	out, err := c.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := c.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		if c.Process.Signal(os.Interrupt) != nil {
			c.Process.Kill()
		}
		c.Wait()
	}
	lines := bufio.NewReader(out)
	line, err := lines.ReadString('\n')
	go io.Copy(io.Discard, lines) //nolint:errcheck // drained until it exits
	endpoint, ok := strings.CutPrefix(strings.TrimSpace(line), "vq mcp serve listening on ")
	if err != nil || !ok {
		stop()
		return "", nil, fmt.Errorf("vq mcp serve --http printed %q (%v)", line, err)
	}
	return endpoint, stop, nil
}

// timedCall is one get_run_failures call from request to answer; an error
// answer fails it. Its params are its own: the SDK adds the session's
// protocol version to them.
func timedCall(ctx context.Context, session *mcp.ClientSession) (sample, error) {
	params := &mcp.CallToolParams{Name: "get_run_failures", Arguments: map[string]any{"runId": "run_abc"}}
	start := time.Now()
	res, err := session.CallTool(ctx, params)
	wall := time.Since(start)
	switch {
	case err != nil:
		return sample{}, err
	case res.IsError:
		return sample{}, errors.New("the call answered an error")
	}
	return sample{wall: wall}, nil
}
