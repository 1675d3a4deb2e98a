package process

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// niceOf reads the nice value of a thread of this process from /proc.
func niceOf(t *testing.T, tid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// Field 19 is the nice value; the name (field 2) may hold spaces, so
	// count from the closing parenthesis.
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	n, err := strconv.Atoi(fields[16])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLowerPriority: every thread of the process has the nice value after
// the call, and so has a thread started after it. (The test process keeps
// the lower priority: an unprivileged process cannot raise it back.)
func TestLowerPriority(t *testing.T) {
	const n = 7
	if err := LowerPriority(n); err != nil {
		t.Fatal(err)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		if got := niceOf(t, tid); got < n {
			t.Errorf("thread %d has nice %d, want at least %d", tid, got, n)
		}
	}
	// A goroutine locked to a thread (a new one when the runtime needs it:
	// it never unlocks, so the runtime ends the thread with it).
	got := make(chan int)
	go func() {
		runtime.LockOSThread()
		got <- niceOf(t, syscall.Gettid())
	}()
	if nice := <-got; nice < n {
		t.Errorf("a thread in use after the call has nice %d, want at least %d", nice, n)
	}
}
