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
// the call, and so have threads started after it. (The test process keeps
// the lower priority: an unprivileged process cannot raise it back.)
func TestLowerPriority(t *testing.T) {
	const n = 7
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	before := map[int]bool{}
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		before[tid] = true
	}
	if err := LowerPriority(n); err != nil {
		t.Fatal(err)
	}
	for tid := range before {
		if got := niceOf(t, tid); got < n {
			t.Errorf("thread %d has nice %d, want at least %d", tid, got, n)
		}
	}
	// More goroutines locked to their threads than the process has threads:
	// the runtime must start new ones for some of them.
	locked := len(before) + 4
	tids, release := make(chan int), make(chan struct{})
	defer close(release)
	for range locked {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			tids <- syscall.Gettid()
			<-release
		}()
	}
	started := 0
	for range locked {
		tid := <-tids
		if !before[tid] {
			started++
		}
		if got := niceOf(t, tid); got < n {
			t.Errorf("thread %d (new: %v) has nice %d, want at least %d", tid, !before[tid], got, n)
		}
	}
	if started == 0 {
		t.Fatal("no thread was started after the call: nothing shows they inherit the value")
	}
}
