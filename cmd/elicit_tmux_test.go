package cmd

import (
	"testing"
	"time"
)

// TestElicitationFormInTmux answers a server's question as a person does
// at a terminal: in plain output the form is drawn on stderr, in the TUI
// as a screen of its own; both send the values typed, typed as the schema
// says, and Esc declines.
func TestElicitationFormInTmux(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("drives a terminal")
	}
	const accepted = `accept {"colour":"green","count":3,"name":"Ada","notify":true}`
	for _, tc := range []struct {
		name    string
		args    []string
		decline bool
		// after is what the screen shows once the server answered.
		after []string
	}{
		{"plain", []string{"--no-tui"}, false, []string{"the server asks: Sign up for the run: accepted", "heard " + accepted, "EXIT=0"}},
		{"plain declined", []string{"--no-tui"}, true, []string{"the server asks: Sign up for the run: declined", "heard decline null", "EXIT=0"}},
		{"TUI", nil, false, []string{"✓ heard", "heard " + accepted, "EXIT=0"}},
		{"TUI declined", nil, true, []string{"✓ heard decline", "heard decline null", "EXIT=0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			endpoint, heard := questionServer(t, signupSchema)
			env := terminalEnv(map[string]string{})
			p := startTmux(t, 100, 30, env, "true", append([]string{"--endpoint", endpoint, "invoke", "signup"}, tc.args...)...)
			p.waitFor("the question", shows("The server asks", "Sign up for the run", "┃ Colour (required)", "Green", "How many", "as on your badge",
				"Notify me", "(no answer)", "esc decline", "ctrl+c cancel"))
			if tc.decline {
				p.keys("Down", "Escape")
			} else {
				// A key at a time, each into the field it is meant for.
				p.keys("Down", "Enter")
				p.waitFor("the integer's field", shows("┃ How many", "┃ > 3"))
				p.keys("Enter")
				p.waitFor("the string's field", shows("┃ Your name (required)"))
				p.keys("-l", "Ada")
				p.waitFor("the name typed", shows("┃ > Ada"))
				p.keys("Enter")
				p.waitFor("the boolean's field", shows("┃ Notify me"))
				p.keys("Down", "Enter")
			}
			want := accepted
			if tc.decline {
				want = "decline null"
			}
			select {
			case got := <-heard:
				if got != want {
					t.Errorf("the server heard %s, want %s", got, want)
				}
			case <-time.After(20 * time.Second): // bounds a hung run only
				t.Fatal("the server never heard an answer")
			}
			p.waitFor("the answer", shows(tc.after...))
		})
	}
}
