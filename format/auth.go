package format

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/visualq/vq/internal/textsafe"
)

// AuthStatus is what vq auth status shows; keys arrive masked, URLs without a password.
type AuthStatus struct {
	Config string `json:"config"`
	// Active is the server calls go to, PickedBy what picked it.
	Active   string         `json:"active,omitempty"`
	PickedBy string         `json:"pickedBy,omitempty"`
	Servers  []ServerStatus `json:"servers"`
}

// ServerStatus is one server's entry in AuthStatus.
type ServerStatus struct {
	BaseURL     string       `json:"baseUrl"`
	Name        string       `json:"name,omitempty"`
	Active      bool         `json:"active"`
	APIKey      string       `json:"apiKey,omitempty"`
	KeySource   string       `json:"keySource,omitempty"`
	Project     string       `json:"project,omitempty"`
	Environment string       `json:"environment,omitempty"`
	Transport   string       `json:"transport,omitempty"`
	Endpoint    string       `json:"endpoint,omitempty"`
	OAuth       *OAuthStatus `json:"oauth,omitempty"`
}

// OAuthStatus is the OAuth sign-in a server's entry shows.
type OAuthStatus struct {
	Endpoint    string    `json:"endpoint"`
	Issuer      string    `json:"issuer"`
	Expiry      time.Time `json:"expiry,omitzero"`
	Refreshable bool      `json:"refreshable"`
	// Scopes are those the server said it granted.
	Scopes []string `json:"scopes,omitempty"`
}

func (o *OAuthStatus) String() string {
	expiry := "no expiry"
	if !o.Expiry.IsZero() {
		expiry = "expires " + o.Expiry.Local().Format(time.RFC3339)
		if o.Refreshable {
			expiry += ", refreshable"
		}
	}
	if len(o.Scopes) > 0 {
		expiry += "; scopes " + textsafe.SanitizeLine(textsafe.Clip(strings.Join(o.Scopes, " "), 256))
	}
	return fmt.Sprintf("%s at issuer %s (%s)", o.Endpoint, o.Issuer, expiry)
}

// AuthStatus writes vq auth status as text, the active server marked *.
func (p Printer) AuthStatus(st AuthStatus) error {
	var b strings.Builder
	b.WriteString("config: " + textsafe.SanitizeLine(st.Config) + "\n")
	if len(st.Servers) == 0 {
		b.WriteString("no servers signed in\n")
	}
	for _, ss := range st.Servers {
		marker := " "
		if ss.Active {
			marker = "*"
		}
		name := textsafe.SanitizeLine(cmp.Or(ss.BaseURL, ss.Endpoint))
		if ss.Name != "" {
			name += " (" + ss.Name + ")"
		}
		b.WriteString(marker + " " + name + "\n")
		key := "none"
		if ss.APIKey != "" {
			key = ss.APIKey + " (from " + ss.KeySource + ")"
		}
		fields := [][2]string{{"api key", key}, {"project", ss.Project}, {"environment", ss.Environment}, {"transport", ss.Transport}, {"endpoint", ss.Endpoint}}
		if ss.OAuth != nil {
			fields = append(fields, [2]string{"oauth", ss.OAuth.String()})
		}
		for _, field := range fields {
			if field[1] != "" {
				fmt.Fprintf(&b, "    %-12s %s\n", field[0]+":", textsafe.SanitizeLine(field[1]))
			}
		}
	}
	if st.PickedBy != "" {
		b.WriteString("* active: picked by " + st.PickedBy + "\n")
	}
	_, err := io.WriteString(p.Out, b.String())
	return err
}
