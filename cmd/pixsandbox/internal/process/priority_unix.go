//go:build unix && !linux

package process

import "syscall"

// LowerPriority gives the process the nice value n (0 to 19, higher yields
// more) where the system has one for the whole process.
func LowerPriority(n int) error {
	return syscall.Setpriority(syscall.PRIO_PROCESS, 0, n)
}
