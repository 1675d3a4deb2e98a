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
// Run it from the repository root: go run ./cmd/pixload (see docs/performance.md).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	flag.DurationVar(&o.quietWait, "quiet-wait", 20*time.Second, "before each measurement, wait up to this long for the machine to be under 10% busy (other processes skew the figures)")
	flag.IntVar(&o.startups, "startups", 5, "cold starts on fresh data dirs to measure start-up (the median is reported)")
	flag.DurationVar(&o.backlogDuration, "backlog-duration", 30*time.Second, "how long the backlog row sends cash-outs at full speed")
	flag.Parse()
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

// result is one wrk run.
type result struct {
	Name        string
	Route       string
	Target      string
	ReqPerSec   float64
	P50, P99    time.Duration
	Requests    int64
	Errors      int64
	Note        string
	PeakRSS     int64
	OtherCPU    float64
	CPUPerReq   time.Duration // server CPU time (user+system) per request
	ratio       float64
	pass        string
	extraPerSec float64
}

type machine struct {
	serverCPU, wrkCPU string
	threads           int
	nproc             int
	model             string
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

	bin := o.bin
	if bin == "" {
		bin = filepath.Join(tmp, "pixsandbox")
		fmt.Println("building ./cmd/pixsandbox")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/pixsandbox")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build: %w", err)
		}
	}
	// Start-up: several cold starts on fresh data dirs; the last one stays up
	// for the load.
	var (
		srv      *exec.Cmd
		base     string
		startups []time.Duration
	)
	for i := 0; i < max(1, o.startups); i++ {
		if srv != nil {
			stop(srv)
		}
		var d time.Duration
		srv, base, d, err = startServer(bin, m.serverCPU, filepath.Join(tmp, fmt.Sprintf("data-%d", i)), filepath.Join(tmp, fmt.Sprintf("server-%d.log", i)))
		if err != nil {
			return err
		}
		startups = append(startups, d)
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

	var results []result
	for _, rt := range routes(f) {
		if !selected(o.routes, rt.name) {
			continue
		}
		if err := rt.preflight(base); err != nil {
			return fmt.Errorf("%s: preflight: %w", rt.name, err)
		}
		r, err := runWrk(o, m, tmp, base, rt, srv.Process.Pid)
		if err != nil {
			return fmt.Errorf("%s: %w", rt.name, err)
		}
		results = append(results, r)
		fmt.Printf("  %-16s %8.0f req/s  p50 %-9s p99 %-9s errors %d  server CPU/req %-8s peak RSS %.1f MB  other processes' CPU %.0f%%\n", r.Name, r.ReqPerSec, fmtDur(r.P50), fmtDur(r.P99), r.Errors, fmtDur(r.CPUPerReq), mb(r.PeakRSS), 100*r.OtherCPU)
	}
	var engine []engineResult
	for _, row := range []struct {
		name string
		run  func(options, machine, string, string, *fixtureSet, int) ([]engineResult, error)
	}{{"backlog", runBacklogRow}, {"isolation", runIsolationRows}} {
		if !selected(o.routes, row.name) {
			continue
		}
		rs, err := row.run(o, m, tmp, base, f, srv.Process.Pid)
		if err != nil {
			return fmt.Errorf("%s: %w", row.name, err)
		}
		for _, r := range rs {
			if r.wrk != nil {
				results = append(results, *r.wrk)
				fmt.Printf("  %-16s %8.0f req/s  p99 %-9s errors %d  server CPU/req %s\n", r.Name, r.wrk.ReqPerSec, fmtDur(r.wrk.P99), r.wrk.Errors, fmtDur(r.wrk.CPUPerReq))
			} else {
				fmt.Printf("  %-16s %s (%s)\n", r.Name, r.Value, r.Target)
			}
		}
		engine = append(engine, rs...)
	}
	var peak int64
	for _, r := range results {
		peak = max(peak, r.PeakRSS)
	}
	inv := invariants(base)
	stop(srv)

	// The ceiling, measured the same way once the simulator is gone.
	cport, err := freePort()
	if err != nil {
		return err
	}
	cbase := "http://127.0.0.1:" + strconv.Itoa(cport)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ceil := pinned(m.serverCPU, self, "ceiling-serve", "127.0.0.1:"+strconv.Itoa(cport))
	ceil.Stderr = os.Stderr
	if err := started(ceil); err != nil {
		return err
	}
	defer stop(ceil)
	if _, err := waitHealthy(cbase, time.Now(), 5*time.Second); err != nil {
		return err
	}
	cr, err := runWrk(o, m, tmp, cbase, route{name: "ceiling", label: "GET / (fixed JSON, net/http)", script: staticScript("GET", "/", nil, "")}, ceil.Process.Pid)
	if err != nil {
		return fmt.Errorf("ceiling: %w", err)
	}
	stop(ceil)
	fmt.Printf("  %-16s %8.0f req/s  p50 %-9s p99 %-9s errors %d  server CPU/req %-8s other processes' CPU %.0f%%\n", cr.Name, cr.ReqPerSec, fmtDur(cr.P50), fmtDur(cr.P99), cr.Errors, fmtDur(cr.CPUPerReq), 100*cr.OtherCPU)

	report := table(m, o, startup, idleRSS, peak, inv, results, cr) + engineTable(engine, cr)
	fmt.Println()
	fmt.Print(report)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(report), 0o644); err != nil {
			return err
		}
	}
	return nil
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
	srv := pinned(cpus, bin, "serve", "--addr", "127.0.0.1:"+strconv.Itoa(port), "--data-dir", dataDir, "--log-level", "warn")
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

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
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

func selected(filter, name string) bool {
	if filter == "" {
		return true
	}
	for _, f := range strings.Split(filter, ",") {
		if strings.TrimSpace(f) == name {
			return true
		}
	}
	return false
}

// fixtureSet is what the routes need: credentials and tokens.
type fixtureSet struct {
	certHeader  string // X-SSL-Client-Cert of fixture account 1
	tokenBody   string // its token request body
	token       string // a token of fixture account 1
	writeTokens []string
	// writeAccounts are the ids of the accounts of writeTokens.
	writeAccounts []int64
	listingToken  string
}

type accountsFile struct {
	Accounts []struct {
		ID           int64  `json:"id"`
		ClientID     string `json:"clientId"`
		ClientSecret string `json:"clientSecret"`
		Certificate  string `json:"certificate"`
	} `json:"accounts"`
}

// certHeader encodes a PEM for X-SSL-Client-Cert: RFC 3986 percent-encoding of
// every byte but the unreserved ones (+ as %2B, space as %20, newline as %0A).
func certHeader(pem string) string {
	var b strings.Builder
	for i := 0; i < len(pem); i++ {
		c := pem[i]
		if ('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func setupFixtures(base string, n int) (*fixtureSet, error) {
	raw, err := os.ReadFile("fixtures/accounts.json")
	if err != nil {
		return nil, fmt.Errorf("run from the repository root: %w", err)
	}
	var af accountsFile
	if err := json.Unmarshal(raw, &af); err != nil {
		return nil, err
	}
	if len(af.Accounts) == 0 {
		return nil, errors.New("no fixture accounts")
	}
	a := af.Accounts[0]
	pem, err := os.ReadFile(filepath.Join("fixtures", a.Certificate))
	if err != nil {
		return nil, err
	}
	f := &fixtureSet{certHeader: certHeader(string(pem))}
	body, _ := json.Marshal(map[string]string{"clientId": a.ClientID, "clientSecret": a.ClientSecret})
	f.tokenBody = string(body)
	if f.token, err = token(base, f.certHeader, f.tokenBody); err != nil {
		return nil, fmt.Errorf("fixture account %d token: %w", a.ID, err)
	}
	// Accounts for the write routes: a large opening balance and no limits, so
	// every cash-out of the run is accepted.
	for i := 0; i < n; i++ {
		var acc struct {
			ID           int64  `json:"id"`
			ClientID     string `json:"clientId"`
			ClientSecret string `json:"clientSecret"`
			Certificate  string `json:"certificate"`
		}
		if err := call("POST", base+"/_sandbox/accounts", "", `{"balance": 9000000000.00}`, 201, &acc); err != nil {
			return nil, fmt.Errorf("create account: %w", err)
		}
		if err := call("PUT", fmt.Sprintf("%s/_sandbox/accounts/%d/settings", base, acc.ID), "",
			`{"perTransactionLimit":0,"dailyLimit":0,"nightLimit":0,"fee":0,"cashInFee":0}`, 200, nil); err != nil {
			return nil, fmt.Errorf("settings: %w", err)
		}
		b, _ := json.Marshal(map[string]string{"clientId": acc.ClientID, "clientSecret": acc.ClientSecret})
		tok, err := token(base, certHeader(acc.Certificate), string(b))
		if err != nil {
			return nil, fmt.Errorf("account %d token: %w", acc.ID, err)
		}
		f.writeTokens = append(f.writeTokens, tok)
		f.writeAccounts = append(f.writeAccounts, acc.ID)
	}
	f.listingToken = f.writeTokens[0]
	return f, nil
}

func token(base, cert, body string) (string, error) {
	var out struct {
		AccessToken string `json:"access_token"`
	}
	req, _ := http.NewRequest("POST", base+"/api/auth/token", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-SSL-Client-Cert", cert)
	if err := do(req, 201, &out); err != nil {
		return "", err
	}
	return out.AccessToken, nil
}

func call(method, u, tok, body string, want int, out any) error {
	req, _ := http.NewRequest(method, u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	return do(req, want, out)
}

func do(req *http.Request, want int, out any) error {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d, want %d: %s", req.Method, req.URL.Path, resp.StatusCode, want, bytes.TrimSpace(b))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// invariants reads GET /_sandbox/invariants after the run.
func invariants(base string) string {
	resp, err := http.Get(base + "/_sandbox/invariants")
	if err != nil {
		return "not read: " + err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var v struct {
		OK *bool `json:"ok"`
	}
	if json.Unmarshal(b, &v) == nil && v.OK != nil {
		if *v.OK {
			return "hold"
		}
		return "VIOLATED: " + string(bytes.TrimSpace(b))
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, bytes.TrimSpace(b))
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
// than 10% busy.
func waitQuiet(limit time.Duration) {
	deadline := time.Now().Add(limit)
	for {
		b0, t0 := cpuTicks()
		time.Sleep(500 * time.Millisecond)
		b1, t1 := cpuTicks()
		if t1 <= t0 || float64(b1-b0)/float64(t1-t0) < 0.10 || time.Now().After(deadline) {
			return
		}
	}
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

// wrkSummary is the line the done() hook of every script prints.
type wrkSummary struct {
	Requests   int64   `json:"requests"`
	DurationUS float64 `json:"duration"`
	P50        float64 `json:"p50"`
	P99        float64 `json:"p99"`
	Connect    int64   `json:"connect"`
	Read       int64   `json:"read"`
	Write      int64   `json:"write"`
	Status     int64   `json:"status"`
	Timeout    int64   `json:"timeout"`
	Extra      int64   `json:"extra"`
	ExtraFail  int64   `json:"extrafail"`
}

func runWrk(o options, m machine, tmp, base string, rt route, pid int) (result, error) {
	script := filepath.Join(tmp, rt.name+".lua")
	if err := os.WriteFile(script, []byte(rt.script+doneHook), 0o644); err != nil {
		return result{}, err
	}
	waitQuiet(o.quietWait)
	var perf *exec.Cmd
	if o.perfDir != "" {
		os.MkdirAll(o.perfDir, 0o755)
		perf = exec.Command("perf", "record", "-F", "1999", "-g", "-p", strconv.Itoa(pid), "-o", filepath.Join(o.perfDir, rt.name+".perf.data"))
		perf.Stderr = io.Discard
		if err := started(perf); err != nil {
			return result{}, fmt.Errorf("perf: %w", err)
		}
	}
	stopRSS := make(chan struct{})
	peak := sampleRSS(pid, stopRSS)
	busy0, total0 := cpuTicks()
	proc0 := procTicks(pid)
	cmd := pinned(m.wrkCPU, "wrk", "-t", strconv.Itoa(m.threads), "-c", strconv.Itoa(o.connections),
		"-d", fmt.Sprintf("%ds", int(o.duration.Seconds())), "--timeout", "5s", "-s", script, base)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := started(cmd)
	if err == nil {
		err = cmd.Wait()
		children.Delete(cmd)
	}
	close(stopRSS)
	peakRSS := <-peak
	busy1, total1 := cpuTicks()
	proc1 := procTicks(pid)
	if perf != nil {
		_ = perf.Process.Signal(os.Interrupt)
		perf.Wait()
		children.Delete(perf)
	}
	if err != nil {
		return result{}, fmt.Errorf("wrk: %w: %s%s", err, stderr.String(), stdout.String())
	}
	var s wrkSummary
	found := false
	for _, line := range strings.Split(stdout.String(), "\n") {
		if j, ok := strings.CutPrefix(line, "PIXLOAD "); ok {
			if err := json.Unmarshal([]byte(j), &s); err != nil {
				return result{}, fmt.Errorf("wrk summary %q: %w", j, err)
			}
			found = true
		}
	}
	if !found {
		return result{}, fmt.Errorf("no summary in wrk output: %s", stdout.String())
	}
	secs := s.DurationUS / 1e6
	r := result{
		Name: rt.name, Route: rt.label, Target: rt.target,
		ReqPerSec: float64(s.Requests) / secs,
		P50:       time.Duration(s.P50 * float64(time.Microsecond)),
		P99:       time.Duration(s.P99 * float64(time.Microsecond)),
		Requests:  s.Requests,
		Errors:    s.Connect + s.Read + s.Write + s.Status + s.Timeout,
		PeakRSS:   peakRSS,
		Note:      rt.note,
	}
	if s.Requests > 0 {
		r.CPUPerReq = time.Duration(float64(proc1-proc0) * float64(10*time.Millisecond) / float64(s.Requests))
	}
	// CPU time spent by other processes during the run, as a share of the
	// whole machine: wrk's own time comes from its rusage.
	if total1 > total0 && cmd.ProcessState != nil {
		wrkTicks := float64(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()) / float64(10*time.Millisecond)
		other := float64(busy1-busy0) - float64(proc1-proc0) - wrkTicks
		r.OtherCPU = max(0, other/float64(total1-total0))
	}
	if rt.extraName != "" {
		r.extraPerSec = float64(s.Extra) / secs
		r.Errors += s.ExtraFail
		r.Note = fmt.Sprintf("%s; %.0f completed %s/s", rt.note, r.extraPerSec, rt.extraName)
	}
	return r, nil
}

// doneHook prints the summary as one JSON line; scripts that count a second
// kind of completed operation keep it in the per-thread globals extra and extrafail.
const doneHook = `
local pixload_threads = {}
function setup(thread)
  table.insert(pixload_threads, thread)
  thread:set("tid", #pixload_threads)
end
function done(summary, latency, requests)
  local extra, extrafail = 0, 0
  for _, t in ipairs(pixload_threads) do
    extra = extra + (t:get("extra") or 0)
    extrafail = extrafail + (t:get("extrafail") or 0)
  end
  local e = summary.errors
  io.write(string.format('PIXLOAD {"requests":%d,"duration":%d,"p50":%d,"p99":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"extra":%d,"extrafail":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout, extra, extrafail))
end
`

// route is one measured route: its wrk script and a preflight that checks one
// request succeeds before the load starts.
type route struct {
	name, label, target, note string
	script                    string
	extraName                 string
	preflight                 func(base string) error
}

func luaString(s string) string { return strconv.Quote(s) }

func luaList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = luaString(x)
	}
	return "{" + strings.Join(q, ",") + "}"
}

// staticScript sends one fixed request: wrk builds it once.
func staticScript(method, path string, headers map[string]string, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = %s\nwrk.path = %s\n", luaString(method), luaString(path))
	for k, v := range headers {
		fmt.Fprintf(&b, "wrk.headers[%s] = %s\n", luaString(k), luaString(v))
	}
	if body != "" {
		fmt.Fprintf(&b, "wrk.body = %s\n", luaString(body))
	}
	return b.String()
}

const cashOutBody = `{"value":0.01,"externalId":"%s-%d-%d","details":{"key":"11987654321","keyType":"PHONE","name":"Fulano","document":"52998224725"}}`
const cobBody = `{"calendario":{"expiracao":3600},"valor":{"original":"25.00"}}`
const cashInBody = `{"transaction":{"value":1.00,"description":"load","externalId":"%s-%d-%d"},"payer":{"fullName":"Ciclano de Souza","document":"52998224725"}}`

// rotatingScript sends method path with a Bearer token taken in turn from
// tokens and a body made by string.format(bodyFmt, prefix, tid, counter).
// path may contain %s, replaced by a unique id made from prefix, tid and counter.
func rotatingScript(method, path, bodyFmt, prefix string, tokens []string) string {
	return fmt.Sprintf(`
local tokens = %s
local counter = 0
local prefix = %s
local body_fmt = %s
local path_fmt = %s
request = function()
  counter = counter + 1
  local tok = tokens[(counter %% #tokens) + 1]
  local body = nil
  if body_fmt ~= "" then body = string.format(body_fmt, prefix, tid, counter) end
  local path = path_fmt
  if path:find("%%%%s") then path = string.format(path_fmt, string.format("%%s%%02d%%024d", prefix, tid, counter)) end
  return wrk.format(%s, path, {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. tok}, body)
end
`, luaList(tokens), luaString(prefix), luaString(bodyFmt), luaString(path), luaString(method))
}

// cashInPayScript creates a cash-in charge, then pays it through the control
// plane with the transactionId of the answer; completed payments count in extra.
func cashInPayScript(tokens []string) string {
	return fmt.Sprintf(`
local tokens = %s
local counter = 0
local pending = {}
local inflight_pay = 0
extra = 0
extrafail = 0
local body_fmt = %s
request = function()
  local id = table.remove(pending)
  if id then
    return wrk.format("POST", "/_sandbox/payments", {["Content-Type"] = "application/json"}, '{"transactionId":"' .. id .. '"}')
  end
  counter = counter + 1
  local tok = tokens[(counter %% #tokens) + 1]
  return wrk.format("POST", "/api/pix/cash-in", {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. tok},
    string.format(body_fmt, "ci", tid, counter))
end
response = function(status, headers, body)
  if body:find('"pixCode"', 1, true) then
    if status == 201 or status == 200 then
      local id = body:match('"transactionId":"(%%d+)"')
      if id then table.insert(pending, id) end
    end
  elseif body:find('"endToEndId"', 1, true) and (status == 201 or status == 200) then
    extra = extra + 1
  elseif status >= 300 then
    extrafail = extrafail + 1
  end
end
`, luaList(tokens), luaString(cashInBody))
}

func routes(f *fixtureSet) []route {
	auth := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	check := func(method, path, tok, body string, want int) func(string) error {
		return func(base string) error { return call(method, base+path, tok, body, want, nil) }
	}
	w := f.writeTokens
	return []route{
		{
			name: "token", label: "POST /api/auth/token", target: "p99 < 10 ms",
			script:    staticScript("POST", "/api/auth/token", map[string]string{"Content-Type": "application/json", "X-SSL-Client-Cert": f.certHeader}, f.tokenBody),
			preflight: func(base string) error { _, err := token(base, f.certHeader, f.tokenBody); return err },
		},
		{
			name: "balance", label: "GET /accounts/balances", target: "≥ 50% of ceiling, p99 < 10 ms",
			script:    staticScript("GET", "/accounts/balances", auth(f.token), ""),
			preflight: check("GET", "/accounts/balances", f.token, "", 200),
		},
		{
			name: "api-balance", label: "GET /api/balance", target: "≥ 50% of ceiling, p99 < 10 ms",
			script:    staticScript("GET", "/api/balance", auth(f.token), ""),
			preflight: check("GET", "/api/balance", f.token, "", 200),
		},
		{
			name: "cash-out", label: "POST /api/pix/cash-out", target: "≥ 0.08 of the ceiling, p99 < 25 ms",
			note:      fmt.Sprintf("durable; %d accounts", len(w)),
			script:    rotatingScript("POST", "/api/pix/cash-out", cashOutBody, "co", w),
			preflight: check("POST", "/api/pix/cash-out", w[0], fmt.Sprintf(cashOutBody, "pre", 0, 0), 201),
		},
		{
			name: "cash-out-1acct", label: "POST /api/pix/cash-out", target: "≥ 0.08 of the ceiling, p99 < 25 ms",
			note:      "durable; one account",
			script:    rotatingScript("POST", "/api/pix/cash-out", cashOutBody, "c1", w[:1]),
			preflight: check("POST", "/api/pix/cash-out", w[0], fmt.Sprintf(cashOutBody, "pre1", 0, 0), 201),
		},
		{
			name: "put-cob", label: "PUT /cob/{txid}", target: "≥ 0.12 of the ceiling, p99 < 25 ms",
			note:      fmt.Sprintf("durable; %d accounts", len(w)),
			script:    rotatingScript("PUT", "/cob/%s", cobBody, "lc", w),
			preflight: check("PUT", "/cob/preflight0000000000000000000", w[0], cobBody, 201),
		},
		{
			name: "cash-in+pay", label: "POST /api/pix/cash-in + POST /_sandbox/payments", target: "p99 < 10 ms",
			note:      "req/s counts both requests",
			extraName: "paid charges",
			script:    cashInPayScript(w),
			preflight: check("POST", "/api/pix/cash-in", w[0], fmt.Sprintf(cashInBody, "prein", 0, 0), 201),
		},
		{
			name: "listing", label: "GET /api/transactions?size=50", target: "p99 < 10 ms",
			note:      "an account with thousands of transactions",
			script:    staticScript("GET", "/api/transactions?size=50", auth(f.listingToken), ""),
			preflight: check("GET", "/api/transactions?size=50", f.listingToken, "", 200),
		},
	}
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%d µs", d.Microseconds())
	}
}

func passFail(ok bool) string {
	if ok {
		return "pass"
	}
	return "**FAIL**"
}

// table renders the results as Markdown.
func table(m machine, o options, startup time.Duration, idle, peak int64, inv string, rs []result, ceil result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Machine: %d cores (nproc), %s. Server pinned to cpu %s, wrk to cpu %s (%d thread(s)), %d connections, %s per route.\n\n",
		m.nproc, m.model, orAll(m.serverCPU), orAll(m.wrkCPU), m.threads, o.connections, o.duration)
	fmt.Fprintf(&b, "| route | req/s | p50 | p99 | ratio to ceiling | errors | server CPU/req | other CPU | target | result |\n")
	fmt.Fprintf(&b, "|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	fmt.Fprintf(&b, "| ceiling: %s | %.0f | %s | %s | 1.00 | %d | %s | %.0f%% | — | — |\n", ceil.Route, ceil.ReqPerSec, fmtDur(ceil.P50), fmtDur(ceil.P99), ceil.Errors, fmtDur(ceil.CPUPerReq), 100*ceil.OtherCPU)
	for _, r := range rs {
		ratio := r.ReqPerSec / ceil.ReqPerSec
		ok := r.P99 < 10*time.Millisecond && r.Errors == 0
		write := r.P99 < 25*time.Millisecond && r.Errors == 0
		switch r.Name {
		case "balance", "api-balance":
			ok = ok && ratio >= 0.5
		case "cash-out", "cash-out-1acct":
			ok = write && ratio >= 0.08
		case "put-cob":
			ok = write && ratio >= 0.12
		case "backlog-cash-out", "isolation-a":
			continue // in the engine table
		}
		label := r.Route
		if r.Note != "" {
			label += " (" + r.Note + ")"
		}
		fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %.2f | %d | %s | %.0f%% | %s | %s |\n", label, r.ReqPerSec, fmtDur(r.P50), fmtDur(r.P99), ratio, r.Errors, fmtDur(r.CPUPerReq), 100*r.OtherCPU, r.Target, passFail(ok))
	}
	fmt.Fprintf(&b, "\nother CPU: the share of the machine's CPU time used by processes other than the server and wrk during the run; above a few percent the figures are understated. server CPU/req: the server's user+system CPU time divided by the requests served, less sensitive to other load than req/s; 1 s divided by it is what one core could serve if CPU were the only limit.\n")
	fmt.Fprintf(&b, "\n| measure | value | target | result |\n|---|---:|---|---|\n")
	fmt.Fprintf(&b, "| start-up (exec to first healthy /healthz, fresh data dir; median of %d) | %s | < 150 ms | %s |\n",
		max(1, o.startups), fmtDur(startup), passFail(startup < 150*time.Millisecond))
	fmt.Fprintf(&b, "| idle RSS (1 s after start-up) | %.1f MB | < 64 MB | %s |\n", mb(idle), passFail(idle < 64<<20))
	fmt.Fprintf(&b, "| peak RSS under load | %.1f MB | — | — |\n", mb(peak))
	fmt.Fprintf(&b, "| ledger invariants after the run (GET /_sandbox/invariants) | %s | hold | — |\n", inv)
	return b.String()
}
