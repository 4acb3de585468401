package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/visualq/vq/api"
)

// A recording (vq sandbox --record DIR) is a directory of exchanges, one
// indented JSON file each, numbered in the order they completed:
// 0001-get_run_failures.json, 0002-ci-run_vrt.json, ... A body that is
// JSON is kept as JSON (so a diff shows the field that changed), a
// server-sent event stream as its list of events, other text as a string,
// and anything else (an image) in a file beside it. One file per exchange
// rather than one JSON Lines file: a person trims a recording by deleting
// files, and a diff of a re-recorded run shows indented fields, not one
// long changed line per exchange.

// exchange is one request and the answer it got.
type exchange struct {
	Request  message `json:"request"`
	Response message `json:"response"`
}

// message is a request (Method, URL) or an answer (Status, Header), and
// its body in one of four forms.
type message struct {
	Method string          `json:"method,omitempty"`
	URL    string          `json:"url,omitempty"` // path and query
	Status int             `json:"status,omitempty"`
	Header http.Header     `json:"header,omitempty"`
	JSON   json.RawMessage `json:"json,omitempty"`
	Events []event         `json:"events,omitempty"`
	Text   string          `json:"text,omitempty"`
	File   string          `json:"file,omitempty"` // a body that is not text, in this file beside the exchange
}

// event is one server-sent event with data: JSON when it is JSON.
type event struct {
	Event string          `json:"event,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
	Text  string          `json:"text,omitempty"`
}

const (
	// recordedBase stands for the server's scheme and host in a recording:
	// the recorder writes it for the upstream's, the replayer serves its own.
	recordedBase = "{{base}}"
	// redacted stands for a credential's value wherever it appeared.
	redacted = "[redacted]"
	// recordedSession stands for the upstream's Mcp-Session-Id.
	recordedSession = "recorded-session"
)

// recordedHeaders are the answer's headers a recording keeps: what a
// client acts on. Cookies, dates and the rest are left out.
var recordedHeaders = []string{"Content-Type", "Retry-After", "Location", "Www-Authenticate", "Mcp-Session-Id"}

// setBody stores body in m as JSON, events, text or (returned) a binary
// to write beside the exchange.
func (m *message) setBody(body []byte, contentType string) (binary []byte) {
	media, _, _ := mime.ParseMediaType(contentType)
	switch {
	case len(body) == 0:
	case media == "text/event-stream":
		m.Events = parseEvents(body)
	case json.Valid(body):
		m.JSON = json.RawMessage(bytes.TrimSpace(body))
	case isText(media, body):
		m.Text = string(body)
	default:
		return body
	}
	return nil
}

// body is the bytes m stands for; binary is its file's content.
func (m *message) body(binary []byte) []byte {
	switch {
	case m.Events != nil:
		return writeEvents(m.Events)
	case m.JSON != nil:
		var b bytes.Buffer
		json.Compact(&b, m.JSON) //nolint:errcheck // checked when the recording was read
		return append(b.Bytes(), '\n')
	case m.Text != "":
		return []byte(m.Text)
	}
	return binary
}

func isText(media string, body []byte) bool {
	return strings.HasPrefix(media, "text/") || strings.HasSuffix(media, "json") || (media == "" && !bytes.ContainsRune(body, 0) && bytes.Equal(bytes.ToValidUTF8(body, nil), body))
}

// parseEvents reads a text/event-stream body; ids, retries and events
// without data are left out: a replay has no stream to resume.
func parseEvents(body []byte) []event {
	var events []event
	var name string
	var data []string
	flush := func() {
		if len(data) > 0 {
			e := event{Event: name}
			if d := strings.Join(data, "\n"); json.Valid([]byte(d)) {
				e.Data = json.RawMessage(d)
			} else {
				e.Text = d
			}
			events = append(events, e)
		}
		name, data = "", nil
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, len(body)+1)
	for sc.Scan() {
		field, value, _ := strings.Cut(sc.Text(), ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			flush()
		case "event":
			name = value
		case "data":
			data = append(data, value)
		}
	}
	flush()
	return events
}

func writeEvents(events []event) []byte {
	var b bytes.Buffer
	for _, e := range events {
		if e.Event != "" {
			b.WriteString("event: " + e.Event + "\n")
		}
		data := e.Text
		if e.Data != nil {
			var c bytes.Buffer
			json.Compact(&c, e.Data) //nolint:errcheck // checked when the recording was read
			data = c.String()
		}
		for line := range strings.SplitSeq(data, "\n") {
			b.WriteString("data: " + line + "\n")
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// request is what a request means, for matching a replayed one to a
// recorded one: its method, path, query and body, with what does not
// change the answer left out (JSON key order, JSON-RPC ids, params._meta,
// initialize's clientInfo; headers, so Mcp-Session-Id and
// Idempotency-Key, are never part of it).
type request struct {
	key  string // the meaning, as one comparable string
	what string // the meaning in a person's words, for a refusal
	tool string // the invoke or CI tool
	mcp  bool   // a JSON-RPC message to the MCP endpoint
	id   json.RawMessage
	// progressToken is the _meta.progressToken a replayed progress
	// notification is sent with.
	progressToken json.RawMessage
}

// meaning reads a request's method, URL (path and query) and body.
func meaning(method, rawURL string, body []byte) request {
	u, err := url.Parse(rawURL)
	if err != nil {
		u = &url.URL{Path: rawURL}
	}
	where := method + " " + u.Path
	if q := u.Query(); len(q) > 0 {
		where += "?" + q.Encode()
	}
	r := request{what: where}
	var doc map[string]json.RawMessage
	if json.Unmarshal(body, &doc) != nil {
		r.key = where + "\n" + canonical(body)
		return r
	}
	switch {
	case u.Path == api.MCPPath:
		r.mcp, r.id = true, doc["id"]
		delete(doc, "id")
		delete(doc, "jsonrpc")
		r.what = "MCP " + unquote(doc["method"])
		var params map[string]json.RawMessage
		if json.Unmarshal(doc["params"], &params) == nil {
			var meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			}
			_ = json.Unmarshal(params["_meta"], &meta)
			r.progressToken = meta.ProgressToken
			delete(params, "_meta")
			// Who asks is not what is asked: a recording outlives an
			// upgrade of the client that replays it.
			delete(params, "clientInfo")
			doc["params"] = mustEncode(params)
			if r.tool = unquote(params["name"]); r.tool != "" {
				r.what += " " + r.tool + " " + canonical(params["arguments"])
			}
		}
	case u.Path == api.InvokePath:
		r.tool = unquote(doc["tool"])
		r.what = r.tool + " " + canonical(doc["args"])
	case strings.HasPrefix(u.Path, api.CIPath):
		r.tool = strings.TrimPrefix(u.Path, api.CIPath)
		r.what = "CI " + r.tool + " " + canonical(body)
	}
	r.key = where + "\n" + canonical(mustEncode(doc))
	return r
}

// canonical is a JSON value with its objects' keys sorted and no space.
func canonical(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	return strings.TrimSuffix(string(mustEncode(v)), "\n")
}

func unquote(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// exchangeName is an exchange's file name: its number and what it asked.
func exchangeName(n int, r request) string {
	label := r.tool
	switch {
	case r.mcp:
		label = "mcp-" + strings.TrimPrefix(r.what, "MCP ")
		if r.tool != "" {
			label = "mcp-" + r.tool
		}
	case strings.HasPrefix(r.what, "CI "):
		label = "ci-" + r.tool
	case label == "":
		label = r.what
	}
	label = strings.Trim(unsafeName().ReplaceAllString(label, "-"), "-")
	return fmt.Sprintf("%04d-%.48s", n, label)
}

var unsafeName = lazyRegexp(`[^A-Za-z0-9_.]+`)
