package sandbox

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/visualq/vq/internal/testkit"
)

// testServer serves a fresh sandbox with fast jobs and no rate limit,
// unless opts say otherwise.
func testServer(t *testing.T, opts Options) *httptest.Server {
	t.Helper()
	if opts.JobStep == 0 {
		opts.JobStep = 20 * time.Millisecond
	}
	if opts.Rate == 0 {
		opts.Rate = -1
	}
	ts := testkit.Serve(t, New(opts).Handler())
	return ts
}

// answer is one HTTP exchange with the invoke endpoint.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// invoke posts {"tool", "args"} (plus extra top-level fields) with key.
func invoke(t *testing.T, ts *httptest.Server, key, tool string, args map[string]any, extra ...string) answer {
	t.Helper()
	req := map[string]any{"tool": tool, "args": args}
	for i := 0; i+1 < len(extra); i += 2 {
		req[extra[i]] = extra[i+1]
	}
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return post(t, ts, key, body)
}

func post(t *testing.T, ts *httptest.Server, key string, body []byte) answer {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, ts.URL+"/api/mcp/v1/invoke", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
	}
	r.Header.Set("Content-Type", "application/json")
	return do(t, r)
}

func do(t *testing.T, r *http.Request) answer {
	t.Helper()
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: body}
}

// toolResponse decodes the answer generically, as a script would.
func (a answer) toolResponse(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(a.body, &v); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, a.body)
	}
	return v
}

// keyOrder lists every object key of a JSON document in document order,
// with its path, so two documents can be compared for field order.
func keyOrder(t *testing.T, doc []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	var keys []string
	var walk func(path string)
	walk = func(path string) {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("walking JSON: %v", err)
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					t.Fatal(err)
				}
				keys = append(keys, path+"."+k.(string))
				walk(path + "." + k.(string))
			}
			dec.Token() //nolint:errcheck // the closing brace
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				walk(path + "[]")
			}
			dec.Token() //nolint:errcheck // the closing bracket
		}
	}
	walk("")
	return keys
}

func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(buf.String())
}
