package cmd

import (
	"archive/tar"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// installScript is the install script of the README's Install section.
const installScript = "../scripts/install.sh"

// install runs the install script with args in a fresh HOME, against the
// loopback release server, with the environment's extra variables; dirs
// on path come first in its PATH.
func install(t *testing.T, releases *releaseServer, env []string, path []string, args ...string) (home, stderr string, exit int) {
	t.Helper()
	for _, tool := range []string{"bash", "curl", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the install script needs %s", tool)
		}
	}
	if archiveName("x") != "vq_x_linux_amd64.tar.gz" && archiveName("x") != "vq_x_linux_arm64.tar.gz" &&
		!strings.HasPrefix(archiveName("x"), "vq_x_darwin_") {
		t.Skipf("the install script installs on Linux and macOS, not %s", runtime.GOOS)
	}
	home = t.TempDir()
	script, _ := filepath.Abs(installScript)
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Dir = home
	cmd.Env = append([]string{"HOME=" + home, "TMPDIR=" + t.TempDir(), "VQ_INSTALL_GITHUB_URL=" + releases.URL,
		"PATH=" + strings.Join(append(path, os.Getenv("PATH")), string(os.PathListSeparator))}, env...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	err := cmd.Run()
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatal(err)
	}
	return home, errOut.String(), cmd.ProcessState.ExitCode()
}

// With no version, the script installs the release releases/latest names
// (the redirect read, not followed) into ~/.local/bin, checked against
// checksums.txt, and says that directory is not on PATH; the installed vq
// runs.
func TestInstallScriptInstallsTheNewestRelease(t *testing.T) {
	t.Parallel()
	releases := newReleaseServer(t)
	releases.release(t, "1.3.0", vqBinary(t), false)
	releases.mu.Lock()
	releases.latest = "1.3.0"
	releases.mu.Unlock()
	home, stderr, exit := install(t, releases, nil, nil)
	bin := filepath.Join(home, ".local", "bin")
	want := "vq install: installing vq 1.3.0 (" + archiveName("1.3.0") + ") from " + releases.URL + "/visualq/vq/releases/download/v1.3.0\n" +
		"vq install: installed vq 1.3.0 as " + bin + "/vq\n" +
		"vq install: " + bin + " is not on your PATH: add it (export PATH=\"" + bin + ":$PATH\") to run vq\n"
	if exit != 0 || stderr != want {
		t.Fatalf("exit %d, stderr:\n%s\nwant:\n%s", exit, stderr, want)
	}
	out, err := exec.Command(filepath.Join(bin, "vq"), "exit-codes").Output()
	if err != nil || !strings.Contains(string(out), "run_failed") {
		t.Errorf("the installed vq: %v\n%s", err, out)
	}
}

// A tampered archive, a link for vq, a release that is not one and an
// unknown argument each end the script with one line and nothing in BINDIR.
func TestInstallScriptRefusesWhatItCannotTrust(t *testing.T) {
	t.Parallel()
	releases := newReleaseServer(t)
	releases.release(t, "1.3.1", vqBinary(t), true)
	releases.publish(t, "1.3.2", false, &tar.Header{Name: "vq", Typeflag: tar.TypeSymlink, Linkname: "/bin/sh", Mode: 0o777}, nil)
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--version", "1.3.1"}, "vq install: refusing " + archiveName("1.3.1") + ": its SHA-256 "},
		{[]string{"--version=v1.3.2"}, "vq install: refusing " + archiveName("1.3.2") + ": its vq is not a regular file (a link, or missing)\n"},
		{[]string{"--version", "latest"}, "vq install: 'latest' is not a release version (such as 1.4.2)\n"},
		{[]string{"--version", "9.9.9"}, "vq install: cannot download " + releases.URL + "/visualq/vq/releases/download/v9.9.9/" + archiveName("9.9.9") + "\n"},
		{nil, "vq install: cannot ask " + releases.URL + "/visualq/vq for its newest release: give one with --version\n"},
		{[]string{"--force"}, "vq install: unknown argument '--force' (usage: install.sh [--version X.Y.Z]; BINDIR=DIR sets where)\n"},
	} {
		bindir := filepath.Join(t.TempDir(), "bin")
		_, stderr, exit := install(t, releases, []string{"BINDIR=" + bindir}, nil, tc.args...)
		if exit != 1 || !strings.Contains(stderr, tc.says) || strings.Count(stderr, "vq install: ") > 2 {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant a line with %q", tc.args, exit, stderr, tc.says)
		}
		if _, err := os.Stat(bindir); err == nil {
			t.Errorf("%q: BINDIR was made", tc.args)
		}
	}
}

// readmeSigner is the certificate identity (for release version) and
// issuer the README's Install section pins in its cosign verify-blob
// command: the script must check the same.
func readmeSigner(t *testing.T, version string) (identity, issuer string) {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`--certificate-identity (\S+)@refs/tags/v[0-9.]+ \\\n\s*--certificate-oidc-issuer (\S+)`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("the README's Install section pins no cosign identity and issuer")
	}
	return string(m[1]) + "@refs/tags/v" + version, string(m[2])
}

// With cosign installed, checksums.txt must carry the release workflow's
// keyless signature for the tag: the script downloads the signature bundle
// and asks cosign with the identity and issuer pinned; a signature cosign
// refuses leaves nothing installed.
func TestInstallScriptChecksTheSignatureWithCosign(t *testing.T) {
	t.Parallel()
	releases := newReleaseServer(t)
	releases.release(t, "1.3.3", vqBinary(t), false)
	dir := filepath.Join(releases.root, "visualq", "vq", "releases", "download", "v1.3.3")
	os.WriteFile(filepath.Join(dir, "checksums.txt.sigstore.json"), []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`), 0o644)
	identity, issuer := readmeSigner(t, "1.3.3")
	fake := t.TempDir()
	os.WriteFile(filepath.Join(fake, "cosign"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$COSIGN_ARGS\"\nexit \"$COSIGN_EXIT\"\n"), 0o755)
	for _, exit := range []string{"0", "1"} {
		args := filepath.Join(t.TempDir(), "args")
		bindir := filepath.Join(t.TempDir(), "bin")
		_, stderr, code := install(t, releases, []string{"BINDIR=" + bindir, "COSIGN_ARGS=" + args, "COSIGN_EXIT=" + exit}, []string{fake}, "--version", "1.3.3")
		got, _ := os.ReadFile(args)
		want := "verify-blob\n--bundle\n" + filepath.Join(filepath.Dir(strings.Split(string(got), "\n")[2]), "checksums.txt.sigstore.json") +
			"\n--certificate-identity\n" + identity + "\n--certificate-oidc-issuer\n" + issuer + "\n" +
			filepath.Join(filepath.Dir(strings.Split(string(got), "\n")[2]), "checksums.txt") + "\n"
		if string(got) != want {
			t.Errorf("cosign %s was asked:\n%s\nwant the README's identity and issuer:\n%s", exit, got, want)
		}
		_, err := os.Stat(filepath.Join(bindir, "vq"))
		switch {
		case exit == "0" && (code != 0 || err != nil || !strings.Contains(stderr, "checksums.txt carries the release workflow's signature (cosign)\n")):
			t.Errorf("a good signature: exit %d (%v)\n%s", code, err, stderr)
		case exit == "1" && (code != 1 || err == nil || !strings.HasSuffix(stderr, "vq install: refusing vq 1.3.3: checksums.txt does not carry the release workflow's cosign signature\n")):
			t.Errorf("a refused signature: exit %d (installed: %v)\n%s", code, err == nil, stderr)
		}
	}
}
