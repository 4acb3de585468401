package api

import (
	"bytes"
	"encoding/json"
	"io"
)

// Document is the response as JSON: the server's bytes, else encoded.
func (r *ToolResponse) Document() ([]byte, error) {
	if raw := r.Raw; raw != nil {
		return bytes.TrimSpace(raw), nil
	}
	var doc bytes.Buffer
	doc.Grow(len(r.Data) + 1024)
	if err := r.WriteDocument(&doc); err != nil {
		return nil, err
	}
	return doc.Bytes(), nil
}

// WriteDocument streams Document to w (json.Marshal would copy the data).
func (r *ToolResponse) WriteDocument(w io.Writer) error {
	if raw := r.Raw; raw != nil {
		_, err := w.Write(bytes.TrimSpace(raw))
		return err
	}
	if r.Data != nil && !json.Valid(r.Data) {
		_, err := json.Marshal(r) // its error
		return err
	}
	shell := *r
	shell.Data = nil
	head, err := json.Marshal(&shell)
	if err != nil {
		return err
	}
	// The members before data are a bool and strings (quotes escaped).
	const member = `"data":`
	at := bytes.Index(head, []byte(member+"null")) + len(member)
	if _, err := w.Write(head[:at]); err != nil {
		return err
	}
	data := r.Data
	if data == nil {
		data = []byte("null")
	}
	if err := writeMarshalled(w, data); err != nil {
		return err
	}
	_, err = w.Write(head[at+len("null"):])
	return err
}

// writeMarshalled writes JSON as json.Marshal writes a RawMessage.
func writeMarshalled(w io.Writer, doc []byte) error {
	const hex = "0123456789abcdef"
	var escape [6]byte
	start := 0
	replace := func(i, n int, with []byte) error {
		if _, err := w.Write(doc[start:i]); err != nil {
			return err
		}
		start = i + n
		_, err := w.Write(with)
		return err
	}
	var scan JSONScan
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		var err error
		switch _, space := scan.Next(c); {
		case c == '<' || c == '>' || c == '&':
			escape = [6]byte{'\\', 'u', '0', '0', hex[c>>4], hex[c&0xf]}
			err = replace(i, 1, escape[:])
		case c == 0xe2 && i+2 < len(doc) && doc[i+1] == 0x80 && doc[i+2]&^1 == 0xa8:
			escape = [6]byte{'\\', 'u', '2', '0', '2', hex[doc[i+2]&0xf]}
			err = replace(i, 3, escape[:])
			i += 2
		case space:
			err = replace(i, 1, nil)
		}
		if err != nil {
			return err
		}
	}
	_, err := w.Write(doc[start:])
	return err
}
