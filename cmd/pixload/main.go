// Command pixload measures the simulator under load with wrk.
//
// It builds (or takes) the pixsandbox binary, starts it on a fresh temporary
// data directory with the default durability (Badger SyncWrites on), measures
// the time from exec to the first healthy answer and the idle resident memory,
// obtains tokens for the fixture account and for accounts it creates with large
// balances, and runs wrk against each route with a generated Lua script. It
// then starts a minimal net/http server answering a fixed JSON body, the
// ceiling, and measures it the same way, so every figure also reads as a ratio
// to what a Go HTTP server does on the same machine. When two or more cores are
// available the server and wrk are pinned to different cores with taskset.
//
// With -open-loop and -open-loop-proxy it also loads routes at a fixed
// arrival rate (openloop.go), timing each request from when it was due, on a
// fresh server started without pinning, and the ceiling at the same rates.
//
// Run it from the repository root: go run ./cmd/pixload (see docs/performance.md).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type options struct {
	bin         string
	duration    time.Duration
	connections int
	threads     int
	accounts    int
	routes      string
	pin         bool
	out         string
	perfDir     string
	quietWait   time.Duration
	startups    int
	// backlogDuration is how long the backlog row sends cash-outs.
	backlogDuration time.Duration
	// workspaces is how many workspaces the workspaces row creates;
	// workspacesControl deletes them before the loads (the same writes,
	// no workspace present).
	workspaces        int
	workspacesControl bool
	// The open-loop rows (openrows.go): -open-loop and -open-loop-proxy as
	// given, and parsed into openSpecs and proxySpec.
	openLoop, openFractions, openProxy string
	openDuration, openCeilingDuration  time.Duration
	openMaxSenders, openProxyPairs     int
	openSpecs                          []openSpec
	proxySpec                          *openSpec
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "ceiling-serve" {
		serveCeiling(os.Args[2])
		return
	}
	var o options
	flag.StringVar(&o.bin, "bin", "", "pixsandbox binary to measure (default: go build ./cmd/pixsandbox into a temp dir)")
	flag.DurationVar(&o.duration, "duration", 6*time.Second, "wrk duration per route")
	flag.IntVar(&o.connections, "connections", 64, "wrk connections")
	flag.IntVar(&o.threads, "threads", 0, "wrk threads (default: the cores left to wrk)")
	flag.IntVar(&o.accounts, "accounts", 8, "accounts created for the write routes (requests rotate over their tokens)")
	flag.StringVar(&o.routes, "routes", "", "comma-separated route names to run (default: all)")
	flag.BoolVar(&o.pin, "pin", true, "pin the server and wrk to different cores with taskset when 2+ cores exist")
	flag.StringVar(&o.out, "out", "", "also write the result table (Markdown) to this file")
	flag.StringVar(&o.perfDir, "perf", "", "record a perf profile of the server during each route into this directory (needs perf)")
	flag.DurationVar(&o.quietWait, "quiet-wait", 20*time.Second, "before each measurement, wait up to this long for the machine to be under 10% busy (other processes skew the figures) and the server under 5% of a core (compactions left by the route before)")
	flag.IntVar(&o.startups, "startups", 5, "cold starts on fresh data dirs to measure start-up (the median is reported)")
	flag.DurationVar(&o.backlogDuration, "backlog-duration", 30*time.Second, "how long the backlog row sends cash-outs at full speed")
	flag.IntVar(&o.workspaces, "workspaces", 1000, "how many idle workspaces the workspaces row creates before it loads balance and cash-out again (0 measures the same rows without them)")
	flag.BoolVar(&o.workspacesControl, "workspaces-control", false, "delete the workspaces row's workspaces before it loads balance and cash-out again: the same writes with none present, to tell their cost from the data's")
	flag.StringVar(&o.openLoop, "open-loop", "", "open-loop rows, ROUTE[@RATE][:DURATION],...: ROUTE at RATE requests per second (1000) or at a share of its closed-loop throughput in this run (0.5x, 50%), for DURATION (default -open-loop-duration); without @RATE, one row at each of -open-loop-fractions; ROUTE@RATE+ROUTE@RATE loads routes at once in one row. Routes: "+strings.Join(openRouteNames, ", "))
	flag.StringVar(&o.openFractions, "open-loop-fractions", "0.25,0.5,0.75", "the shares of a route's closed-loop throughput an -open-loop route without @RATE runs at")
	flag.DurationVar(&o.openDuration, "open-loop-duration", 60*time.Second, "how long each open-loop row schedules requests, unless its entry says")
	flag.DurationVar(&o.openCeilingDuration, "open-loop-ceiling-duration", 20*time.Second, "how long the ceiling is loaded open-loop at each rate of the rows (0: each row's own duration)")
	flag.IntVar(&o.openMaxSenders, "open-loop-max-senders", 2048, "the most requests each route of an open-loop row keeps in flight (one connection each); past it, requests are sent late and counted")
	flag.IntVar(&o.openProxyPairs, "open-loop-proxy-pairs", 1, "how many times -open-loop-proxy runs its direct and proxied halves, alternating; with more than one, the verdict is on the median pair")
	flag.StringVar(&o.openProxy, "open-loop-proxy", "", "RATE[:DURATION]: balance reads and PUT /cob, half of RATE requests per second each, directly on a fresh server and then through pixsandbox proxy --upstream in front of another, and the latency the proxy adds (issue 30: 1000:60s)")
	flag.Parse()
	if err := parseOpenFlags(&o); err != nil {
		fmt.Fprintln(os.Stderr, "pixload:", err)
		os.Exit(2)
	}
	// On Ctrl-C or SIGTERM, stop what was started before exiting.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		children.Range(func(k, _ any) bool {
			if c := k.(*exec.Cmd); c.Process != nil {
				_ = c.Process.Kill()
			}
			return true
		})
		if d, ok := tmpDir.Load().(string); ok {
			time.Sleep(100 * time.Millisecond)
			os.RemoveAll(d)
		}
		os.Exit(130)
	}()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "pixload:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	for _, tool := range []string{"wrk"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s not found (make bench installs it: apt-get install -y wrk)", tool)
		}
	}
	tmp, err := os.MkdirTemp("", "pixload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tmpDir.Store(tmp)

	m := detectMachine(o)
	fmt.Printf("machine: %d cores, %s; server on cpu %s, wrk on cpu %s with %d thread(s), %d connections, %s per route\n",
		m.nproc, m.model, orAll(m.serverCPU), orAll(m.wrkCPU), m.threads, o.connections, o.duration)

	bin, err := buildServer(o, tmp)
	if err != nil {
		return err
	}
	srv, base, startups, err := coldStarts(o, m, bin, tmp)
	if err != nil {
		return err
	}
	defer stop(srv)
	startup := median(startups)
	fmt.Printf("start-up to first healthy answer over %d cold starts: median %s, min %s, max %s\n", len(startups),
		fmtDur(startup), fmtDur(slices.Min(startups)), fmtDur(slices.Max(startups)))
	time.Sleep(time.Second)
	idleRSS := rss(srv.Process.Pid)
	fmt.Printf("idle RSS 1 s after start-up: %.1f MB\n", mb(idleRSS))

	f, err := setupFixtures(base, o.accounts)
	if err != nil {
		return err
	}

	results, err := runRoutes(o, m, tmp, base, f, srv.Process.Pid)
	if err != nil {
		return err
	}
	engine, err := runEngineRows(o, m, tmp, base, f, srv.Process.Pid, &results)
	if err != nil {
		return err
	}
	if err := closedFor(o, m, tmp, base, f, srv.Process.Pid, &results); err != nil {
		return err
	}
	var peak int64
	for _, r := range results {
		peak = max(peak, r.PeakRSS)
	}
	inv := invariants(base)
	stop(srv)
	var open *openOutcome
	if len(o.openSpecs) > 0 || o.proxySpec != nil {
		if open, err = runOpenRows(o, bin, tmp, resolveRates(o.openSpecs, results), o.proxySpec); err != nil {
			return err
		}
	}

	// The ceiling, measured the same way once the simulator is gone.
	cr, err := runCeiling(o, m, tmp)
	if err != nil {
		return err
	}
	fmt.Printf("  %-16s %8.0f req/s  p50 %-9s p90 %-9s p99 %-9s max %-9s errors %d  server CPU/req %-8s other processes' CPU %.0f%%\n", cr.Name, cr.ReqPerSec, fmtDur(cr.P50), fmtDur(cr.P90), fmtDur(cr.P99), fmtDur(cr.Max), cr.Errors, fmtDur(cr.CPUPerReq), 100*cr.OtherCPU)

	if open != nil {
		if err := runOpenCeiling(o, open); err != nil {
			return err
		}
	}

	report := table(m, o, startup, idleRSS, peak, inv, results, cr) + engineTable(engine, cr) + openTable(open)
	fmt.Println()
	fmt.Print(report)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(report), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// buildServer is the pixsandbox binary to load: --bin, or one built into tmp.
func buildServer(o options, tmp string) (string, error) {
	if o.bin != "" {
		return o.bin, nil
	}
	bin := filepath.Join(tmp, "pixsandbox")
	fmt.Println("building ./cmd/pixsandbox")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/pixsandbox")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	return bin, nil
}

// coldStarts starts the server several times on fresh data dirs and times
// each start-up; the last one stays up for the load (the caller stops it).
func coldStarts(o options, m machine, bin, tmp string) (srv *exec.Cmd, base string, startups []time.Duration, err error) {
	for i := 0; i < max(1, o.startups); i++ {
		if srv != nil {
			stop(srv)
		}
		var d time.Duration
		srv, base, d, err = startServer(bin, m.serverCPU, filepath.Join(tmp, fmt.Sprintf("data-%d", i)), filepath.Join(tmp, fmt.Sprintf("server-%d.log", i)))
		if err != nil {
			return nil, "", nil, err
		}
		startups = append(startups, d)
	}
	return srv, base, startups, nil
}

// runRoutes loads each selected route with wrk and prints its line.
func runRoutes(o options, m machine, tmp, base string, f *fixtureSet, pid int) ([]result, error) {
	var results []result
	for _, rt := range routes(f) {
		if !selected(o.routes, rt.name) {
			continue
		}
		if err := rt.preflight(base); err != nil {
			return nil, fmt.Errorf("%s: preflight: %w", rt.name, err)
		}
		r, err := runWrk(o, m, tmp, base, rt, pid)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rt.name, err)
		}
		results = append(results, r)
		fmt.Printf("  %-16s %8.0f req/s  p50 %-9s p90 %-9s p99 %-9s max %-9s errors %d  server CPU/req %-8s peak RSS %.1f MB  other processes' CPU %.0f%%\n", r.Name, r.ReqPerSec, fmtDur(r.P50), fmtDur(r.P90), fmtDur(r.P99), fmtDur(r.Max), r.Errors, fmtDur(r.CPUPerReq), mb(r.PeakRSS), 100*r.OtherCPU)
		if w := r.Writer; w != nil && w.Batches > 0 {
			fmt.Printf("  %-16s writer: %.0f batches/s of %.1f ops, apply %s, commit %s, commits over 25 ms %.0f, over 100 ms %.0f, %.0f%% of the time in commits\n",
				"", w.Batches/w.Seconds, w.Ops/w.Batches, fmtDur(w.Apply), fmtDur(w.Commit), w.Over25ms, w.Over100ms, 100*w.CommitShare)
		}
	}
	return results, nil
}

// runEngineRows measures the selected engine rows (backlog, isolation) and
// prints their lines; the rows measured with wrk are added to results too.
func runEngineRows(o options, m machine, tmp, base string, f *fixtureSet, pid int, results *[]result) ([]engineResult, error) {
	var engine []engineResult
	for _, row := range []struct {
		name string
		run  func(options, machine, string, string, *fixtureSet, int) ([]engineResult, error)
	}{{"backlog", runBacklogRow}, {"isolation", runIsolationRows}, {"workspaces", runWorkspaceRows}} {
		if !selected(o.routes, row.name) {
			continue
		}
		rs, err := row.run(o, m, tmp, base, f, pid)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", row.name, err)
		}
		for _, r := range rs {
			if r.wrk != nil {
				*results = append(*results, *r.wrk)
				fmt.Printf("  %-16s %8.0f req/s  p90 %-9s p99 %-9s errors %d  server CPU/req %s\n", r.Name, r.wrk.ReqPerSec, fmtDur(r.wrk.P90), fmtDur(r.wrk.P99), r.wrk.Errors, fmtDur(r.wrk.CPUPerReq))
			} else {
				fmt.Printf("  %-16s %s (%s)\n", r.Name, r.Value, r.Target)
			}
		}
		engine = append(engine, rs...)
	}
	return engine, nil
}

// runCeiling measures the ceiling: a fixed JSON answer of net/http on the
// server's CPU, loaded the same way.
func runCeiling(o options, m machine, tmp string) (result, error) {
	cport, err := freePort()
	if err != nil {
		return result{}, err
	}
	cbase := "http://127.0.0.1:" + strconv.Itoa(cport)
	self, err := os.Executable()
	if err != nil {
		return result{}, err
	}
	ceil := pinned(m.serverCPU, self, "ceiling-serve", "127.0.0.1:"+strconv.Itoa(cport))
	ceil.Stderr = os.Stderr
	if err := started(ceil); err != nil {
		return result{}, err
	}
	defer stop(ceil)
	if _, err := waitHealthy(cbase, time.Now(), 5*time.Second); err != nil {
		return result{}, err
	}
	cr, err := runWrk(o, m, tmp, cbase, route{name: "ceiling", label: "GET / (fixed JSON, net/http)", script: staticScript("GET", "/", nil, "")}, ceil.Process.Pid)
	if err != nil {
		return result{}, fmt.Errorf("ceiling: %w", err)
	}
	return cr, nil
}
