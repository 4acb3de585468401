package update

import "testing"

// TestUpgradeNamesHowVQWasInstalled: the notice names the upgrade command
// of the way vq was installed, read from the executable's path.
func TestUpgradeNamesHowVQWasInstalled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		exe       string
		goInstall bool
		want      string
	}{
		{"/opt/homebrew/Cellar/vq/1.4.2/bin/vq", false, "brew upgrade vq"},
		{"/home/linuxbrew/.linuxbrew/bin/vq", false, "brew upgrade vq"},
		{`C:\Users\a\scoop\apps\vq\current\vq.exe`, false, "scoop update vq"},
		{`C:\Users\a\AppData\Local\Microsoft\WinGet\Links\vq.exe`, false, "winget upgrade VisualQ.vq"},
		{"/home/a/go/bin/vq", true, "go install github.com/visualq/vq@latest"},
		{"/usr/bin/vq", false, "install the .deb, .rpm or .apk of " + releases},
		{"/home/a/.local/bin/vq", false, "run scripts/install.sh again (see " + releases + ")"},
		{"/srv/tools/vq", false, "download it from " + releases},
	} {
		if got := Upgrade(tc.exe, tc.goInstall); got != tc.want {
			t.Errorf("Upgrade(%q, %v) = %q, want %q", tc.exe, tc.goInstall, got, tc.want)
		}
	}
}

// TestNewerTakesOnlyPlainVersions: a feed's text is a version only when it
// is MAJOR.MINOR.PATCH; anything else is never newer.
func TestNewerTakesOnlyPlainVersions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		latest, current string
		want            bool
	}{
		{"v1.5.0", "1.4.2", true},
		{"v1.4.10", "v1.4.9", true},
		{"v1.4.2", "1.4.2", false},
		{"v1.5.0", "1.4.2-rc.1", false},
		{"v1.3.9", "1.4.2", false},
		{"v2.0.0\x1b]52;c;x\a", "1.4.2", false},
		{"v2.0.0; rm -rf ~", "1.4.2", false},
		{"v02.0.0", "1.4.2", false},
		{"v+2.0.0", "1.4.2", false},
		{"v9999999999.0.0", "1.4.2", false},
		{"v2.0.0", "dev", false},
	} {
		if got := newer(tc.latest, tc.current); got != tc.want {
			t.Errorf("newer(%q, %q) = %v, want %v", tc.latest, tc.current, got, tc.want)
		}
	}
}
