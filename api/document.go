package api

import (
	"bytes"
	"encoding/json"
)

// Document is the response as one JSON document: the server's own bytes
// when it sent them, else the client-made response encoded.
func (r *ToolResponse) Document() ([]byte, error) {
	if raw := r.Raw(); raw != nil {
		return bytes.TrimSpace(raw), nil
	}
	return json.Marshal(r)
}
