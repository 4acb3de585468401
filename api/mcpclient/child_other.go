//go:build !unix

package mcpclient

import (
	"os"
	"os/exec"
	"syscall"
)

// inheritedEnv are the variables of vq's environment a stdio server gets.
var inheritedEnv = []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
	"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"}

// inOwnGroup does nothing here: there are no process groups to signal.
func inOwnGroup(*exec.Cmd) {}

// signalGroup signals the child alone.
func signalGroup(p *os.Process, sig syscall.Signal) error {
	if sig == syscall.SIGKILL {
		return p.Kill()
	}
	return p.Signal(sig)
}

// groupAlive: there is no group to outlive the child.
func groupAlive(*os.Process) bool { return false }
