package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestServeProcs(t *testing.T) {
	for _, tc := range []struct {
		cpus int
		env  string
		want int
	}{
		{1, "", 2},  // confined to one CPU: a second processor
		{1, "1", 0}, // GOMAXPROCS set: left alone
		{1, "3", 0},
		{2, "", 0}, // several CPUs (a quota may still limit Go's default): left alone
		{8, "", 0},
	} {
		if got := serveProcs(tc.cpus, tc.env); got != tc.want {
			t.Errorf("serveProcs(%d, %q) = %d, want %d", tc.cpus, tc.env, got, tc.want)
		}
	}
}

// TestServe_ProcessorsOnOneCPU starts the server confined to one CPU and reads
// the processors it runs Go code on from its metrics: two, or what GOMAXPROCS
// says when it is set.
func TestServe_ProcessorsOnOneCPU(t *testing.T) {
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		t.Skip("taskset is not installed: the server cannot be confined to one CPU here")
	}
	for env, want := range map[string]string{"": "2", "1": "1"} {
		cmd := exec.Command(taskset, "-c", "0", os.Args[0], "-test.run=^$")
		cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOMAXPROCS=") })
		if env != "" {
			cmd.Env = append(cmd.Env, "GOMAXPROCS="+env)
		}
		c := startServe(t, cmd, "--addr 127.0.0.1:0 --in-memory --log-level error")
		got := metricValue(t, c.url, "go_sched_gomaxprocs_threads")
		c.kill(t)
		if got != want {
			t.Errorf("GOMAXPROCS=%q on one CPU: the server runs on %s processors, want %s", env, got, want)
		}
	}
}

// metricValue returns the value of an unlabelled metric of base's /metrics.
func metricValue(t *testing.T, base, name string) string {
	t.Helper()
	for _, l := range strings.Split(scrapeMetrics(t, base), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			return v
		}
	}
	t.Fatalf("%s/metrics has no %s", base, name)
	return ""
}
