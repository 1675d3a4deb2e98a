package main

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the command in a process group of its own, out of reach of
// a console's Ctrl-C.
func ownGroup(cmd *exec.Cmd) *exec.Cmd {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
	return cmd
}
