package testkit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// TextTool is the one tool ServeStdioText serves.
const TextTool = "text"

// textLine is each line of TextTool's text, numbered from 1.
const textLine = "line %08d of the text answer, as a file's contents would read."

// TextSummary is the first line of TextTool's text.
var TextSummary = fmt.Sprintf(textLine, 1)

// ServeStdioText is an MCP server over newline-delimited JSON-RPC (stdio)
// whose tool TextTool answers one text block of numbered lines, the
// result size bytes on the wire. It writes the answer a piece at a time
// and holds none of it, so that a measure of its client's memory (which
// includes the waited-for children's) is the client's: an SDK server would
// encode the whole message in memory, several times its size. It answers
// initialize, tools/list, ping and tools/call; other requests get -32601;
// it ends at the end of in.
func ServeStdioText(in io.Reader, out io.Writer, size int) error {
	r := bufio.NewReader(in)
	w := bufio.NewWriterSize(out, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if werr := answerText(w, line, size); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// answerText answers one request line (a notification gets nothing).
func answerText(w *bufio.Writer, line []byte, size int) error {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &req) != nil || len(req.ID) == 0 {
		return nil
	}
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":`, req.ID)
	switch req.Method {
	case "initialize":
		version, _ := json.Marshal(req.Params.ProtocolVersion)
		fmt.Fprintf(w, `%s{"protocolVersion":%s,"capabilities":{"tools":{}},"serverInfo":{"name":"vq-test-text","version":"1"}}}`+"\n", head, version)
	case "tools/list":
		fmt.Fprintf(w, `%s{"tools":[{"name":%q,"inputSchema":{"type":"object"}}]}}`+"\n", head, TextTool)
	case "ping":
		fmt.Fprintf(w, "%s{}}\n", head)
	case "tools/call":
		w.WriteString(head)
		WriteTextResult(w, size)
		w.WriteString("}\n")
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no method %s"}}`+"\n", req.ID, req.Method)
	}
	return w.Flush()
}

// The result around TextTool's text.
const textOpen, textClose = `{"content":[{"type":"text","text":"`, `"}]}`

// WriteTextResult writes the result TextTool answers with, size bytes or
// a line more: one text block.
func WriteTextResult(w io.Writer, size int) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(textOpen)
	textLines(size, func(line string) { bw.WriteString(line + `\n`) })
	bw.WriteString(textClose)
	return bw.Flush()
}

// WriteText writes the text of the result WriteTextResult writes, as it
// reads decoded.
func WriteText(w io.Writer, size int) error {
	bw := bufio.NewWriter(w)
	textLines(size, func(line string) { bw.WriteString(line + "\n") })
	return bw.Flush()
}

// textLines calls line with each line of the text of a result of size
// bytes, until the text, as a JSON string's content (a newline is two
// bytes), would fill it.
func textLines(size int, line func(string)) {
	size -= len(textOpen) + len(textClose)
	for n, written := 1, 0; written < size; n++ {
		s := fmt.Sprintf(textLine, n)
		line(s)
		written += len(s) + len(`\n`)
	}
}
