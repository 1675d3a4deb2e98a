package main

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// TestChildPids: a process started by this one is among its children, and
// its CPU counts in treeTicks.
func TestChildPids(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc here")
	}
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; sleep 30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sh:", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if got := childPids(os.Getpid()); !slices.Contains(got, cmd.Process.Pid) {
		t.Fatalf("children %v lack %d", got, cmd.Process.Pid)
	}
	if childPids(-1) != nil {
		t.Error("a process that does not exist has children")
	}
	// The child's busy loop shows in its ticks within a fraction of a second.
	deadline := time.Now().Add(5 * time.Second) // wall clock: how long a test waits for a process's CPU
	for procTicks(cmd.Process.Pid) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	child := procTicks(cmd.Process.Pid)
	if child == 0 {
		t.Skip("the child used no CPU tick in 5 s")
	}
	// Ticks only grow: both parts are read before the whole, so the whole
	// is at least their sum (read after, this process's own ticks could
	// have grown past what treeTicks saw).
	self := procTicks(os.Getpid())
	if tree := treeTicks(os.Getpid()); tree < self+child {
		t.Errorf("treeTicks %d leaves out the child's ticks (this process %d, the child %d before it)", tree, self, child)
	}
}
