package auth_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/visualq/vq/cmd"
	"github.com/visualq/vq/cmd/auth"
	"github.com/visualq/vq/cmd/cmdtest"
)

func TestMain(m *testing.M) { cmdtest.Main(m, cmd.Main) }

func TestScripts(t *testing.T) { cmdtest.Scripts(t, "testdata/script") }

func TestNewCmdLogin(t *testing.T) {
	t.Parallel()
	const doc = "https://192.0.2.1/oauth/client.json"
	for _, tc := range []struct {
		args    []string
		want    auth.LoginOptions
		wantErr string
	}{
		{args: []string{"--with-token", "--name", "prod", "--no-verify"}, want: auth.LoginOptions{WithToken: true, Name: "prod", NoVerify: true}},
		{args: []string{"--oauth", "--no-browser", "--scope", "mcp:write", "--scope", "a,b"}, want: auth.LoginOptions{OAuth: true, NoBrowser: true, Scopes: []string{"mcp:write", "a", "b"}}},
		{args: []string{"--oauth", "--client-metadata-url", doc}, want: auth.LoginOptions{OAuth: true, ClientMetadataURL: doc}},
		{args: []string{"--name", "a b"}, wantErr: `--name "a b"`},
		{args: []string{"--client-metadata-url", doc}, wantErr: "is a client id for OAuth"},
		{args: []string{"--oauth", "--client-metadata-url", "https://192.0.2.1/"}, wantErr: "has no path"},
		{args: []string{"--oauth", "--with-token"}, wantErr: "[oauth with-token]"},
		{args: []string{"--oauth", "--no-verify"}, wantErr: "[oauth no-verify]"},
		{args: []string{"https://192.0.2.1"}, wantErr: "unknown command"},
	} {
		var got *auth.LoginOptions
		err := cmdtest.Execute(auth.NewCmdLogin(cmdtest.NewFactory(), func(_ context.Context, o *auth.LoginOptions) error { got = o; return nil }), tc.args...)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != nil {
				t.Errorf("%q: ran %v, err %v; want an error about %q before running", tc.args, got != nil, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got == nil {
			t.Fatalf("%q: err %v", tc.args, err)
		}
		w := tc.want
		if got.WithToken != w.WithToken || got.Name != w.Name || got.NoVerify != w.NoVerify || got.OAuth != w.OAuth ||
			got.NoBrowser != w.NoBrowser || !slices.Equal(got.Scopes, w.Scopes) || got.ClientMetadataURL != w.ClientMetadataURL {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.args, *got, w)
		}
	}
}

func TestNewCmdSwitchLogoutStatus(t *testing.T) {
	t.Parallel()
	var server string
	if err := cmdtest.Execute(auth.NewCmdSwitch(cmdtest.NewFactory(), func(o *auth.SwitchOptions) error { server = o.Server; return nil }), "prod"); err != nil || server != "prod" {
		t.Errorf("switch prod: err %v, server %q", err, server)
	}
	for _, args := range [][]string{nil, {"prod", "staging"}} {
		if err := cmdtest.Execute(auth.NewCmdSwitch(cmdtest.NewFactory(), func(*auth.SwitchOptions) error { t.Errorf("switch %q ran", args); return nil }), args...); err == nil {
			t.Errorf("switch %q: no error", args)
		}
	}
	if err := cmdtest.Execute(auth.NewCmdLogout(cmdtest.NewFactory(), func(context.Context, *auth.LogoutOptions) error { t.Error("logout prod ran"); return nil }), "prod"); err == nil {
		t.Error("logout prod: no error")
	}
	var structured bool
	if err := cmdtest.Execute(auth.NewCmdStatus(cmdtest.NewFactory(), func(_ context.Context, o *auth.StatusOptions) error { structured = o.Output.Structured(); return nil }), "--json"); err != nil || !structured {
		t.Errorf("status --json: err %v, structured %v", err, structured)
	}
	if err := cmdtest.Execute(auth.NewCmdStatus(cmdtest.NewFactory(), nil), "--format", "markdown"); err == nil || !strings.Contains(err.Error(), "markdown") {
		t.Errorf("status --format markdown: err %v", err)
	}
}
