package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/visualq/vq/api"
	"github.com/visualq/vq/internal/exitcode"
	"github.com/visualq/vq/internal/privatefile"
)

// maxRecordedBody bounds the answer a recording holds, as vq bounds what
// it reads; a larger one is passed on but not recorded, with a warning.
const maxRecordedBody = api.MaxBodyBytes

// Record serves a proxy in front of the VisualQ server at upstream that
// forwards every request with the caller's credentials and writes each
// exchange of the invoke, CI and MCP endpoints, and each image, to dir as
// it completes (exchange.go), never a credential. Links in the answers
// point at the proxy. warn hears what could not be recorded.
func Record(opts Options, dir, upstream string, warn func(string)) (*Server, error) {
	up, err := url.Parse(upstream)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return nil, &exitcode.UsageError{Reason: fmt.Sprintf("--upstream %q is not an http(s) URL", upstream), Hint: "example: --upstream https://visualq.example.com"}
	}
	if names, _ := exchangeFiles(dir); len(names) > 0 {
		return nil, &exitcode.UsageError{Reason: "--record " + dir + " already holds a recording", Hint: "record into a new directory, or remove that one"}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	rec := &recorder{dir: dir, upstream: up, upBase: strings.TrimSuffix(up.String(), "/"), warn: warn}
	s := proxyServer(opts, rec)
	s.drain = rec.inflight.Wait
	return s.listen()
}

// proxyServer is a Server of handler h (a recorder or a replayer), with
// the injected faults in front as for the seeded sandbox.
func proxyServer(opts Options, h http.Handler) *Server {
	if opts.Addr == "" {
		opts.Addr = defaultAddr
	}
	s := &Server{opts: opts}
	s.handler = s.withFaults(h)
	return s
}

type recorder struct {
	dir      string
	upstream *url.URL
	upBase   string // the upstream's URL as its links start
	warn     func(string)
	inflight sync.WaitGroup // exchanges being proxied, so Close waits for their files

	mu sync.Mutex
	n  int // exchanges written
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.inflight.Add(1)
	defer rec.inflight.Done()
	own := baseURL(r)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxInvokeBody))
	if err != nil {
		failure("", refuse(api.CodeValidation, "request body is larger than %d bytes", maxInvokeBody)).write(w)
		return
	}
	// What the recording holds: the upstream's links as recordedBase, and
	// no credential of the caller's by value.
	secrets := credentials(r.Header)
	saved := func(b []byte) []byte {
		return scrub(bytes.ReplaceAll(b, []byte(rec.upBase), []byte(recordedBase)), secrets)
	}
	// Links to the proxy in the request point at the upstream.
	body = bytes.ReplaceAll(body, []byte(own), []byte(rec.upBase))
	x := exchange{Request: message{Method: r.Method, URL: string(saved([]byte(r.URL.RequestURI())))}}
	x.Request.setBody(saved(body), "")
	asked := meaning(x.Request.Method, x.Request.URL, saved(body))
	out := r.Clone(r.Context())
	out.Body, out.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(rec.upstream)
			// Go's transport asks for gzip itself and unpacks it: the
			// answer is rewritten and recorded as text.
			pr.Out.Header.Del("Accept-Encoding")
		},
		ModifyResponse: func(resp *http.Response) error {
			x.Response = message{Status: resp.StatusCode, Header: http.Header{}}
			for _, name := range recordedHeaders {
				for _, v := range resp.Header.Values(name) {
					x.Response.Header.Add(name, string(saved([]byte(v))))
				}
			}
			if x.Response.Header.Get("Mcp-Session-Id") != "" {
				x.Response.Header.Set("Mcp-Session-Id", recordedSession)
			}
			for _, values := range resp.Header {
				for i, v := range values {
					values[i] = strings.ReplaceAll(v, rec.upBase, own)
				}
			}
			p := &passOn{src: bufio.NewReader(resp.Body), closer: resp.Body}
			media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			if isText(media, nil) {
				p.from, p.to = []byte(rec.upBase), []byte(own)
			}
			if recordable(r, media) {
				p.done = func(raw []byte, why string) { rec.write(x, asked, saved(raw), why) }
			}
			resp.Body, resp.ContentLength = p, -1
			resp.Header.Del("Content-Length")
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			rec.warn(fmt.Sprintf("%s %s: the upstream did not answer (not recorded): %v", r.Method, r.URL.Path, err))
			http.Error(w, "vq sandbox --record: the upstream did not answer: "+err.Error(), http.StatusBadGateway)
		},
	}
	proxy.ServeHTTP(w, out)
}

// recordable: the invoke, CI and MCP endpoints' exchanges and images.
// The MCP endpoint's GET is its stream of the server's own messages,
// which answers no request; the rest (OAuth metadata and tokens) is
// forwarded but never recorded: a token is a credential.
func recordable(r *http.Request, media string) bool {
	switch p := r.URL.Path; {
	case p == api.InvokePath, strings.HasPrefix(p, api.CIPath):
		return true
	case p == api.MCPPath:
		return r.Method != http.MethodGet
	}
	return r.Method == http.MethodGet && strings.HasPrefix(media, "image/")
}

// write writes one exchange (and its binary body beside it) under the
// next number, or warns why it could not.
func (rec *recorder) write(x exchange, asked request, raw []byte, incomplete string) {
	what := asked.what
	if incomplete != "" {
		rec.warn(what + ": not recorded: " + incomplete)
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.n++
	name := exchangeName(rec.n, asked)
	contentType := x.Response.Header.Get("Content-Type")
	var err error
	if binary := x.Response.setBody(raw, contentType); binary != nil {
		x.Response.File = name + ".bin"
		if exts, _ := mime.ExtensionsByType(contentType); len(exts) > 0 {
			x.Response.File = name + exts[0]
		}
		err = privatefile.WriteReport(filepath.Join(rec.dir, x.Response.File), func(w io.Writer) error {
			_, err := w.Write(binary)
			return err
		})
	}
	if err == nil {
		err = privatefile.WriteReport(filepath.Join(rec.dir, name+".json"), func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			return enc.Encode(x)
		})
	}
	if err != nil {
		rec.warn(what + ": not recorded: " + err.Error())
	}
}

// passOn passes an answer's body on a line at a time, its links
// rewritten from one base to another (so a stream of events reaches the
// client as each arrives), and keeps what the upstream sent for done.
type passOn struct {
	src      *bufio.Reader
	closer   io.Closer
	from, to []byte // nil from: passed on as it is
	pending  []byte
	err      error
	raw      bytes.Buffer
	over     bool // raw passed maxRecordedBody: not kept
	done     func(raw []byte, why string)
}

func (p *passOn) Read(b []byte) (int, error) {
	if len(p.pending) == 0 && p.err == nil {
		line, err := p.src.ReadBytes('\n')
		if p.over = p.over || p.raw.Len()+len(line) > maxRecordedBody; !p.over {
			p.raw.Write(line)
		}
		if p.from != nil {
			line = bytes.ReplaceAll(line, p.from, p.to)
		}
		p.pending, p.err = line, err
		// Written before the client has the end of the answer: once it
		// has, the exchange is on disk.
		if errors.Is(err, io.EOF) {
			p.finish("")
		} else if err != nil {
			p.finish("the answer was cut short")
		}
	}
	n := copy(b, p.pending)
	p.pending = p.pending[n:]
	if len(p.pending) > 0 {
		return n, nil
	}
	return n, p.err
}

// Close ends the answer: an MCP client stops reading a call's stream once
// it has the call's answer, which makes the exchange complete.
func (p *passOn) Close() error {
	p.finish("the client left before the end of the answer")
	return p.closer.Close()
}

// finish hands the answer to done once; why says what kept it from being
// whole, unless it holds a JSON-RPC answer.
func (p *passOn) finish(why string) {
	if p.done == nil {
		return
	}
	switch {
	case p.over:
		why = fmt.Sprintf("the answer was larger than %d bytes", maxRecordedBody)
	case why != "" && answered(p.raw.Bytes()):
		why = ""
	}
	p.done(p.raw.Bytes(), why)
	p.done = nil
}

// answered: a stream of events holding a JSON-RPC answer.
func answered(raw []byte) bool {
	for _, e := range parseEvents(raw) {
		var msg struct{ ID, Result, Error json.RawMessage }
		if json.Unmarshal(e.Data, &msg) == nil && msg.ID != nil && (msg.Result != nil || msg.Error != nil) {
			return true
		}
	}
	return false
}

// credentials are the values of a request's credentials: the
// Authorization header's (an API key or an OAuth token) and cookies'.
func credentials(h http.Header) [][]byte {
	var out [][]byte
	for _, name := range []string{"Authorization", "Proxy-Authorization"} {
		for _, v := range h.Values(name) {
			if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
				v = cred
			}
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, []byte(v))
			}
		}
	}
	for _, c := range (&http.Request{Header: h}).Cookies() {
		if c.Value != "" {
			out = append(out, []byte(c.Value))
		}
	}
	return out
}

// scrub replaces every credential's value in b.
func scrub(b []byte, secrets [][]byte) []byte {
	for _, s := range secrets {
		b = bytes.ReplaceAll(b, s, []byte(redacted))
	}
	return b
}
