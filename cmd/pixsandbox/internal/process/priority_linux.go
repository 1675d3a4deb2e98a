package process

import (
	"os"
	"strconv"
	"syscall"
)

// LowerPriority gives every thread of the process the nice value n (0 to
// 19, higher yields more), and so every thread started after it, which
// inherits its creator's: on Linux a nice value belongs to a thread, not to
// the process. It returns the first error, after trying every thread.
func LowerPriority(n int) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	var first error
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err == nil {
			err = syscall.Setpriority(syscall.PRIO_PROCESS, tid, n)
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}
