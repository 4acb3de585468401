package account

import "testing"

func TestCheckClientMetadataURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://vq.example.com/oauth/client.json":   true,
		"https://vq.example.com/client?v=2":          true,
		"http://vq.example.com/oauth/client.json":    false,
		"https://vq.example.com":                     false,
		"https://vq.example.com/":                    false,
		"https://vq.example.com/client.json#x":       false,
		"https://user:pw@vq.example.com/client.json": false,
		"https://vq.example.com/a/../client.json":    false,
		"vq.example.com/client.json":                 false,
	} {
		if err := CheckClientMetadataURL(raw); (err == nil) != ok {
			t.Errorf("CheckClientMetadataURL(%q) = %v", raw, err)
		}
	}
}
