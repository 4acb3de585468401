//go:build unix

package mcpclient

import (
	"os"
	"os/exec"
	"syscall"
)

// inheritedEnv are the variables of vq's environment a stdio server gets.
var inheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}

// inOwnGroup starts the child in its own process group: teardown signals
// the group, and Ctrl-C reaches vq alone, which ends the child in order.
func inOwnGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func signalGroup(p *os.Process, sig syscall.Signal) error { return syscall.Kill(-p.Pid, sig) }

func groupAlive(p *os.Process) bool { return syscall.Kill(-p.Pid, 0) == nil }
