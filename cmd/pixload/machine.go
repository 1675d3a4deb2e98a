package main

// The machine: cores, pinning, and the CPU the other processes use.

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

type machine struct {
	serverCPU, wrkCPU string
	threads           int
	nproc             int
	model             string
}

func detectMachine(o options) machine {
	m := machine{nproc: runtime.NumCPU(), model: "unknown CPU"}
	if out, err := exec.Command("nproc").Output(); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil {
			m.nproc = n
		}
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.model = strings.TrimSpace(v)
				break
			}
		}
	}
	cores := allowedCPUs()
	_, tsErr := exec.LookPath("taskset")
	if o.pin && len(cores) >= 2 && tsErr == nil {
		m.serverCPU = strconv.Itoa(cores[0])
		rest := make([]string, 0, len(cores)-1)
		for _, c := range cores[1:] {
			rest = append(rest, strconv.Itoa(c))
		}
		// With many cores, give the server half of them and wrk the rest.
		if len(cores) >= 4 {
			half := len(cores) / 2
			m.serverCPU = joinInts(cores[:half])
			rest = strings.Split(joinInts(cores[half:]), ",")
		}
		m.wrkCPU = strings.Join(rest, ",")
		m.threads = len(rest)
	} else {
		m.threads = max(1, m.nproc/2)
	}
	if o.threads > 0 {
		m.threads = o.threads
	}
	return m
}

// allowedCPUs lists the CPUs this process may run on (Cpus_allowed_list).
func allowedCPUs() []int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			var cpus []int
			for _, part := range strings.Split(strings.TrimSpace(v), ",") {
				lo, hi, isRange := strings.Cut(part, "-")
				a, err1 := strconv.Atoi(lo)
				b := a
				var err2 error
				if isRange {
					b, err2 = strconv.Atoi(hi)
				}
				if err1 != nil || err2 != nil {
					return nil
				}
				for c := a; c <= b; c++ {
					cpus = append(cpus, c)
				}
			}
			return cpus
		}
	}
	return nil
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func orAll(s string) string {
	if s == "" {
		return "any"
	}
	return s
}

// cpuTicks returns the busy and total jiffies of all CPUs from /proc/stat.
func cpuTicks() (busy, total uint64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	for i, v := range f[1:] {
		n, _ := strconv.ParseUint(v, 10, 64)
		total += n
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, total
}

// waitQuiet waits up to limit for a half-second in which the machine is less
// than 10% busy and the server (pid, when above 0) uses less than 5% of a
// core: a route starts after the compactions the one before it left behind,
// instead of paying for them. It returns how long it waited.
func waitQuiet(limit time.Duration, pid int) time.Duration {
	start := time.Now()
	for {
		b0, t0 := cpuTicks()
		p0 := procTicks(pid)
		time.Sleep(500 * time.Millisecond)
		b1, t1 := cpuTicks()
		p1 := procTicks(pid)
		if t1 < t0 || b1 < b0 || p1 < p0 { // a counter unreadable at one end
			b1, t1, p1 = b0, t0, p0
		}
		if quiet(b1-b0, t1-t0, pid > 0, p1-p0, 500*time.Millisecond) || time.Since(start) > limit {
			return time.Since(start)
		}
	}
}

// quiet tells whether a window of the given length was quiet: the machine
// busy for under 10% of its jiffies (busy of total), and, when watched, the
// server's own CPU time (serverTicks jiffies of 10 ms) under 5% of one core.
func quiet(busy, total uint64, watchServer bool, serverTicks uint64, window time.Duration) bool {
	machineQuiet := total == 0 || float64(busy)/float64(total) < 0.10
	serverQuiet := !watchServer || time.Duration(serverTicks)*10*time.Millisecond < window/20
	return machineQuiet && serverQuiet
}

// procTicks returns utime+stime of pid in jiffies.
func procTicks(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+2:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseUint(f[11], 10, 64)
	st, _ := strconv.ParseUint(f[12], 10, 64)
	return u + st
}

// treeTicks is procTicks of pid and of its children: a proxy's judging
// process works for it (pixsandbox proxy --judging process).
func treeTicks(pid int) uint64 {
	n := procTicks(pid)
	for _, c := range childPids(pid) {
		n += procTicks(c)
	}
	return n
}

// childPids lists the children of pid (none when /proc does not say).
func childPids(pid int) []int {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// sampleRSS records the peak VmRSS of pid until stop is closed.
func sampleRSS(pid int, stop <-chan struct{}) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		var peak int64
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			peak = max(peak, rss(pid))
			select {
			case <-stop:
				out <- peak
				return
			case <-t.C:
			}
		}
	}()
	return out
}
