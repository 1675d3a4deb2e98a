package main

import (
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestServe_ProcessorsOnOneCPU starts the server confined to one CPU and reads
// the processors it runs Go code on from its metrics: one while its store is
// idle, two while something writes, one again after; or what GOMAXPROCS says
// when it is set. (Right after the start it runs on two for process.ProcsIdleTicks
// looks, too short a window to check from here on a loaded machine.)
func TestServe_ProcessorsOnOneCPU(t *testing.T) {
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		t.Skip("taskset is not installed: the server cannot be confined to one CPU here")
	}
	procs := func(c *child) string { return metricValue(t, c.url, "go_sched_gomaxprocs_threads") }
	waitProcs := func(c *child, want, when string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for procs(c) != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the server still runs on %s processors, want %s", when, procs(c), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for env, want := range map[string]string{"": "2", "1": "1"} {
		childEnv := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOMAXPROCS=") })
		if env != "" {
			childEnv = append(childEnv, "GOMAXPROCS="+env)
		}
		c := startServe(t, childCommand(t, childEnv, strings.Fields("serve --addr 127.0.0.1:0 --in-memory --log-level error"), taskset, "-c", "0"))
		if env != "" {
			if got := procs(c); got != want {
				t.Errorf("GOMAXPROCS=%q on one CPU: the server runs on %s processors, want %s", env, got, want)
			}
			c.kill(t)
			continue
		}
		waitProcs(c, "1", "idle")
		// Writes back to back (clock advances) until two processors show.
		stop, done := make(chan struct{}), make(chan struct{})
		client := &http.Client{Timeout: 10 * time.Second} // a hung server ends the writes, and waitProcs fails
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := client.Post(c.url+"/_sandbox/clock/advance", "application/json", strings.NewReader(`{"seconds":1}`))
				if err != nil {
					return
				}
				resp.Body.Close()
			}
		}()
		waitProcs(c, want, "while writing")
		close(stop)
		<-done
		waitProcs(c, "1", "idle after the writes")
		c.kill(t)
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
