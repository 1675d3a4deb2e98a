package main

// The simulator and ceiling processes: start, pin, stop, health and memory.

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// serveCeiling is the reference server: net/http answering a fixed JSON body.
func serveCeiling(addr string) {
	body := []byte(`{"grossBalance":10000.00,"blockedBalance":0.00,"netBalance":10000.00,"consultedAt":"2026-03-02T12:00:00.000Z"}`)
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	if err := http.ListenAndServe(addr, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// startServer starts the simulator on a fresh data dir and waits for its first
// healthy answer.
func startServer(bin, cpus, dataDir, logPath string) (*exec.Cmd, string, time.Duration, error) {
	port, err := freePort()
	if err != nil {
		return nil, "", 0, err
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, "", 0, err
	}
	defer logFile.Close()
	srv := pinned(cpus, bin, "serve", "--addr", "127.0.0.1:"+strconv.Itoa(port), "--data-dir", dataDir, "--log-level", "warn",
		"--workspace-unload-after", "5s") // the workspaces row measures idle workspaces unloaded
	srv.Stdout, srv.Stderr = logFile, logFile
	start := time.Now()
	if err := started(srv); err != nil {
		return nil, "", 0, err
	}
	d, err := waitHealthy(base, start, 10*time.Second)
	if err != nil {
		stop(srv)
		return nil, "", 0, fmt.Errorf("%w (log: %s)", err, tailFile(logPath))
	}
	return srv, base, d, nil
}

// tmpDir is the run's temporary directory, removed on interrupt too.
var tmpDir atomic.Value

// children holds the processes started and not yet waited for.
var children sync.Map

// started starts c and records it until it is waited for.
func started(c *exec.Cmd) error {
	if err := c.Start(); err != nil {
		return err
	}
	children.Store(c, true)
	return nil
}

// pinned returns a command run under taskset -c cpus, or plain when cpus is empty.
func pinned(cpus, name string, args ...string) *exec.Cmd {
	if cpus == "" {
		return exec.Command(name, args...)
	}
	return exec.Command("taskset", append([]string{"-c", cpus, name}, args...)...)
}

func stop(c *exec.Cmd) {
	if c.Process == nil || c.ProcessState != nil {
		return
	}
	_ = c.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { c.Wait(); children.Delete(c); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.Process.Kill()
		<-done
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitHealthy polls GET /healthz (the ceiling answers any path) every 500 µs and
// returns the time from start to the first 200.
func waitHealthy(base string, start time.Time, limit time.Duration) (time.Duration, error) {
	client := &http.Client{Timeout: time.Second}
	for time.Since(start) < limit {
		resp, err := client.Get(base + "/healthz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(start), nil
			}
		}
		time.Sleep(500 * time.Microsecond)
	}
	return 0, fmt.Errorf("%s not healthy after %s", base, limit)
}

// rss reads VmRSS of pid in bytes. Under taskset the pid is taskset's, which
// execs the program, so it is the program's.
func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) >= 1 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

func tailFile(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
