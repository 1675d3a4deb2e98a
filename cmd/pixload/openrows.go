package main

// The open-loop rows (-open-loop, -open-loop-proxy): on a fresh server started
// without CPU pinning, once the closed-loop rows are done; the ceiling is
// loaded at the same rates once the simulator is gone.

import (
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// openPart is a route of an open-loop row at its rate, or at a fraction of
// its closed-loop throughput in the same run (rate 0 until resolved).
type openPart struct {
	route    string
	rate     float64
	fraction float64
}

// openSpec is one open-loop row: a route, or several loaded at once, each at
// its own rate.
type openSpec struct {
	parts    []openPart
	duration time.Duration
}

func (s openSpec) name() string {
	names := make([]string, len(s.parts))
	for i, p := range s.parts {
		names[i] = p.route
	}
	return strings.Join(names, "+")
}

// rate is the row's requests per second, all routes together.
func (s openSpec) rate() float64 {
	var r float64
	for _, p := range s.parts {
		r += p.rate
	}
	return r
}

// parseFractions parses -open-loop-fractions: shares of the closed-loop
// throughput, each above 0 and at most 4.
func parseFractions(s string) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || !(v > 0 && v <= 4) {
			return nil, fmt.Errorf("-open-loop-fractions %q: want numbers above 0 and at most 4, such as 0.25,0.5,0.75", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseRate parses a RATE: requests per second (1000), or a share of the
// closed-loop throughput (0.5x, 50%).
func parseRate(s string) (rate, fraction float64, err error) {
	num, scale := s, 0.0
	if v, ok := strings.CutSuffix(s, "x"); ok {
		num, scale = v, 1
	} else if v, ok := strings.CutSuffix(s, "%"); ok {
		num, scale = v, 0.01
	}
	v, err := strconv.ParseFloat(num, 64)
	switch {
	case err != nil || !(v > 0) || math.IsInf(v, 0):
		return 0, 0, fmt.Errorf("rate %q: want requests per second (1000) or a share of the closed-loop throughput (0.5x, 50%%)", s)
	case scale > 0 && v*scale > 4:
		return 0, 0, fmt.Errorf("rate %q: at most 4x the closed-loop throughput", s)
	case scale > 0:
		return 0, v * scale, nil
	}
	return v, 0, nil
}

// parseOpenLoop parses -open-loop: ROUTE[@RATE][+ROUTE@RATE...][:DURATION],...
// Routes joined by + are loaded at once, each at its own rate; a route alone
// without a rate is one row at each of fractions. DURATION (a Go duration of
// at least 1 s) defaults to def.
func parseOpenLoop(list string, fractions []float64, def time.Duration) ([]openSpec, error) {
	var out []openSpec
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		spec := openSpec{duration: def}
		routesPart := item
		if i := strings.LastIndexByte(item, ':'); i >= 0 {
			d, err := time.ParseDuration(item[i+1:])
			if err != nil || d < time.Second {
				return nil, fmt.Errorf("-open-loop %q: duration %q: want a Go duration of at least 1s, such as 60s", item, item[i+1:])
			}
			routesPart, spec.duration = item[:i], d
		}
		for _, one := range strings.Split(routesPart, "+") {
			name, rate, hasRate := strings.Cut(one, "@")
			if !slices.Contains(openRouteNames, name) {
				return nil, fmt.Errorf("-open-loop %q: no open-loop route %q (one of %s)", item, name, strings.Join(openRouteNames, ", "))
			}
			p := openPart{route: name}
			if hasRate {
				var err error
				if p.rate, p.fraction, err = parseRate(rate); err != nil {
					return nil, fmt.Errorf("-open-loop %q: %w", item, err)
				}
			} else if strings.Contains(routesPart, "+") {
				return nil, fmt.Errorf("-open-loop %q: routes loaded at once each need their @RATE", item)
			}
			spec.parts = append(spec.parts, p)
		}
		if spec.parts[0].rate > 0 || spec.parts[0].fraction > 0 {
			out = append(out, spec)
			continue
		}
		for _, fr := range fractions {
			out = append(out, openSpec{parts: []openPart{{route: spec.parts[0].route, fraction: fr}}, duration: spec.duration})
		}
	}
	return out, nil
}

// parseOpenFlags checks the open-loop flags into o.openSpecs and o.proxySpec.
func parseOpenFlags(o *options) error {
	fr, err := parseFractions(o.openFractions)
	if err != nil {
		return err
	}
	if o.openSpecs, err = parseOpenLoop(o.openLoop, fr, o.openDuration); err != nil {
		return err
	}
	if o.openProxyPairs < 1 {
		return fmt.Errorf("-open-loop-proxy-pairs %d: want 1 or more", o.openProxyPairs)
	}
	if o.openProxy == "" {
		return nil
	}
	bad := fmt.Errorf("-open-loop-proxy %q: want RATE[:DURATION] in requests per second, such as 1000:60s", o.openProxy)
	rateText, dur, hasDur := strings.Cut(o.openProxy, ":")
	rate, err := strconv.ParseFloat(rateText, 64)
	if err != nil || !(rate > 0) || math.IsInf(rate, 0) {
		return bad
	}
	px := openSpec{parts: []openPart{{route: "balance", rate: rate / 2}, {route: "put-cob", rate: rate / 2}}, duration: o.openDuration}
	if hasDur {
		if px.duration, err = time.ParseDuration(dur); err != nil || px.duration < time.Second {
			return bad
		}
	}
	o.proxySpec = &px
	return nil
}

// slowAt is a second of a row with requests over 50 ms: its offset from the
// row's start, how many were over each of slowAfter, and the slowest.
type slowAt struct {
	Second int
	Over   [3]int64
	Max    time.Duration
}

// openResult is one open-loop row.
type openResult struct {
	Name, Label         string
	Rate, Fraction      float64 // Fraction: of the closed-loop throughput, when the rate was given so
	Duration            time.Duration
	Start               time.Time
	Sent, Errors, Late  int64
	Senders             int
	P50, P99, P999, Max time.Duration
	Over                [3]int64
	Slow                []slowAt
	FirstErr            string
	Writer              *writerRun
	OtherCPU            float64      // the machine's CPU used by other processes than the load's, the server's (and the proxy's)
	Parts               []openResult // a mix's routes
	Ceiling             *openResult  // the ceiling at the same rate
}

func summarize(name, label string, rate float64, d time.Duration, start time.Time, senders int, s *openStats) openResult {
	res := openResult{Name: name, Label: label, Rate: rate, Duration: d, Start: start, Sent: s.hist.total,
		Errors: s.errors, Late: s.late, Senders: senders, P50: s.hist.Percentile(50), P99: s.hist.Percentile(99),
		P999: s.hist.Percentile(99.9), Max: s.hist.max, Over: s.over, FirstErr: s.firstErr}
	for i, sec := range s.seconds {
		if sec.over[0] > 0 {
			res.Slow = append(res.Slow, slowAt{Second: i, Over: sec.over, Max: sec.max})
		}
	}
	return res
}

// openRow loads base with the routes of rts at the rates of spec's parts, at
// once, when the machine is quiet, and prints the row's lines under name.
// pids are the processes under load, the server's first: with this one and
// their children (the proxy's judging process), the CPU they use is not
// counted as other processes'.
func openRow(o options, base string, pids []int, name string, spec openSpec, rts []openRoute) openResult {
	if waited := waitQuiet(o.quietWait, pids[0]); waited > 2*time.Second {
		fmt.Printf("  %-16s waited %s for the machine and the server to go quiet\n", name, fmtDur(waited))
	}
	loads := make([]openLoad, len(spec.parts))
	labels := make([]string, len(rts))
	for k, p := range spec.parts {
		loads[k] = openLoad{rate: p.rate, duration: spec.duration, maxSenders: o.openMaxSenders}
		labels[k] = rts[k].label
	}
	pids = append(slices.Clone(pids), os.Getpid())
	ours := func() (n uint64) {
		for _, pid := range pids {
			n += treeTicks(pid)
		}
		return n
	}
	w0, werr := readWriter(base)
	busy0, total0 := cpuTicks()
	ours0 := ours()
	mix := loadHTTP(loads, base, rts)
	busy1, total1 := cpuTicks()
	ours1 := ours()
	res := summarize(name, strings.Join(labels, " + "), spec.rate(), spec.duration, mix.start, mix.senders, mix.total)
	if total1 > total0 && busy1 >= busy0 {
		res.OtherCPU = max(0, float64(busy1-busy0)-float64(ours1-ours0)) / float64(total1-total0)
	}
	for k, p := range mix.parts {
		if len(mix.parts) > 1 {
			part := summarize(rts[k].name, rts[k].label, loads[k].rate, spec.duration, mix.start, p.senders, p.stats)
			part.OtherCPU = res.OtherCPU
			res.Parts = append(res.Parts, part)
		}
	}
	if w1, err := readWriter(base); werr == nil && err == nil {
		w := w1.since(w0, spec.duration)
		res.Writer = &w
	}
	printOpen(res)
	return res
}

func printOpen(r openResult) {
	fmt.Printf("  %-16s %6.0f/s for %s  p50 %-9s p99 %-9s p99.9 %-9s max %-9s >50ms %d >100ms %d >500ms %d  late %d errors %d senders %d other CPU %.0f%%\n",
		r.Name, r.Rate, r.Duration, fmtDur(r.P50), fmtDur(r.P99), fmtDur(r.P999), fmtDur(r.Max), r.Over[0], r.Over[1], r.Over[2], r.Late, r.Errors, r.Senders, 100*r.OtherCPU)
	for _, p := range r.Parts {
		fmt.Printf("  %-16s %6.0f/s of it     p50 %-9s p99 %-9s p99.9 %-9s max %-9s >50ms %d >100ms %d >500ms %d  late %d errors %d\n",
			"  "+p.Name, p.Rate, fmtDur(p.P50), fmtDur(p.P99), fmtDur(p.P999), fmtDur(p.Max), p.Over[0], p.Over[1], p.Over[2], p.Late, p.Errors)
	}
	if r.FirstErr != "" {
		fmt.Printf("  %-16s first error: %s\n", "", r.FirstErr)
	}
	if len(r.Slow) > 0 {
		fmt.Printf("  %-16s slow seconds from %s: %s\n", "", r.Start.UTC().Format("15:04:05.000Z"), slowList(r.Slow, 12))
	}
	if w := r.Writer; w != nil && w.Batches > 0 {
		fmt.Printf("  %-16s writer: %.0f batches/s, commit %s, commits over 25 ms %.0f, over 100 ms %.0f\n", "", w.Batches/w.Seconds, fmtDur(w.Commit), w.Over25ms, w.Over100ms)
	}
}

// slowList renders up to n seconds with slow requests, in order.
func slowList(ss []slowAt, n int) string {
	var parts []string
	for _, s := range ss[:min(n, len(ss))] {
		parts = append(parts, fmt.Sprintf("+%d s: %d/%d/%d (max %s)", s.Second, s.Over[0], s.Over[1], s.Over[2], fmtDur(s.Max)))
	}
	if len(ss) > n {
		parts = append(parts, fmt.Sprintf("and %d more seconds", len(ss)-n))
	}
	return strings.Join(parts, "; ")
}

// openOutcome is what the open-loop rows measured.
type openOutcome struct {
	rows     []openResult
	proxy    []openResult // the same mix direct, then through the proxy, pair after pair
	findings []string     // the proxy's findings over its row, a pair each
	inv      string       // the servers' invariants after their rows (invariants)
	// servers are the ledger invariants read on each server after its
	// rows, by the server's part: "rows", "direct", "proxy" (with
	// -open-loop-proxy-pairs, "direct 1", "proxy 1", …).
	servers []serverCheck
}

type serverCheck struct{ part, result string }

// checked records the invariants read on the server of part.
func (out *openOutcome) checked(part, result string) {
	out.servers = append(out.servers, serverCheck{part, result})
}

// invariants is "hold" when every server's held, else each server's result.
func (out *openOutcome) invariants() string {
	var each []string
	held := true
	for _, c := range out.servers {
		held = held && c.result == "hold"
		each = append(each, c.part+": "+c.result)
	}
	if held && len(each) > 0 {
		return "hold"
	}
	return strings.Join(each, "; ")
}

// closedFor measures closed-loop (with wrk, on the pinned server) the routes
// that a row takes a fraction of and that -routes left out.
func closedFor(o options, m machine, tmp, base string, f *fixtureSet, pid int, results *[]result) error {
	for _, s := range o.openSpecs {
		for _, p := range s.parts {
			if p.fraction == 0 || slices.ContainsFunc(*results, func(r result) bool { return r.Name == p.route }) {
				continue
			}
			rt := routes(f)[slices.IndexFunc(routes(f), func(rt route) bool { return rt.name == p.route })]
			if err := rt.preflight(base); err != nil {
				return fmt.Errorf("%s: preflight: %w", rt.name, err)
			}
			r, err := runWrk(o, m, tmp, base, rt, pid)
			if err != nil {
				return fmt.Errorf("%s: %w", rt.name, err)
			}
			fmt.Printf("  %-16s %8.0f req/s  p50 %-9s p99 %-9s (closed loop: the open-loop rows' reference)\n", r.Name, r.ReqPerSec, fmtDur(r.P50), fmtDur(r.P99))
			*results = append(*results, r)
		}
	}
	return nil
}

// resolveRates gives each route taken as a fraction its rate: the fraction
// of its closed-loop requests per second in results, rounded.
func resolveRates(specs []openSpec, results []result) []openSpec {
	out := make([]openSpec, len(specs))
	for k, s := range specs {
		out[k] = openSpec{parts: slices.Clone(s.parts), duration: s.duration}
		for j, p := range s.parts {
			if i := slices.IndexFunc(results, func(r result) bool { return r.Name == p.route }); p.fraction > 0 && i >= 0 {
				out[k].parts[j].rate = max(1, math.Round(p.fraction*results[i].ReqPerSec))
			}
		}
	}
	return out
}

// rowRoutes are the routes of spec's parts, each with ids of its own: the
// tag of part p of row k is prefix, k and p in five characters.
func rowRoutes(f *fixtureSet, spec openSpec, prefix byte, k int) []openRoute {
	rts := make([]openRoute, len(spec.parts))
	for p, part := range spec.parts {
		rts[p] = openRoutes(f, fmt.Sprintf("%c%03d%d", prefix, k%1000, p%10))[part.route]
	}
	return rts
}

// runOpenRows runs the rows of specs on a fresh server without pinning,
// then the proxy pair when px is set (on servers of its own), and reads the
// ledger invariants of every server after its rows.
func runOpenRows(o options, bin, tmp string, specs []openSpec, px *openSpec) (*openOutcome, error) {
	fmt.Printf("open loop: a fresh server without CPU pinning, requests timed from when they were due; late: sent over %s after\n", fmtDur(lateAfter))
	out := &openOutcome{}
	if len(specs) > 0 {
		if err := runOpenSpecs(o, bin, tmp, specs, out); err != nil {
			return nil, err
		}
	}
	if px != nil {
		if err := runProxyPair(o, bin, tmp, *px, out); err != nil {
			return nil, err
		}
	}
	out.inv = out.invariants()
	return out, nil
}

// runOpenSpecs runs the rows of specs on a fresh server, one after another.
func runOpenSpecs(o options, bin, tmp string, specs []openSpec, out *openOutcome) error {
	srv, base, _, err := startServer(bin, "", filepath.Join(tmp, "data-open"), filepath.Join(tmp, "server-open.log"))
	if err != nil {
		return err
	}
	defer stop(srv)
	pid := srv.Process.Pid
	var f *fixtureSet
	var fixed time.Time
	fixtures := func() (err error) { // tokens live 30 minutes
		if f == nil || time.Since(fixed) > 20*time.Minute {
			fixed = time.Now()
			f, err = setupFixtures(base, o.accounts)
		}
		return err
	}
	preflown := map[string]bool{}
	for k, s := range specs {
		if err := fixtures(); err != nil {
			return err
		}
		for _, p := range s.parts {
			if !preflown[p.route] {
				preflown[p.route] = true
				if err := routes(f)[slices.IndexFunc(routes(f), func(r route) bool { return r.name == p.route })].preflight(base); err != nil {
					return fmt.Errorf("%s: preflight: %w", p.route, err)
				}
			}
		}
		r := openRow(o, base, []int{pid}, s.name(), s, rowRoutes(f, s, 'o', k))
		if len(s.parts) == 1 {
			r.Fraction = s.parts[0].fraction
		}
		out.rows = append(out.rows, r)
	}
	out.checked("rows", invariants(base))
	return nil
}

// proxyLine is what `pixsandbox proxy` prints first: its own URL, then the upstream's.
var proxyLine = regexp.MustCompile(`^pixsandbox proxy: (http://\S+) -> `)

// lineTap writes to w and sends the first line written to first.
type lineTap struct {
	w     io.Writer
	first chan string
	buf   []byte
}

func (t *lineTap) Write(b []byte) (int, error) {
	if t.first != nil {
		t.buf = append(t.buf, b...)
		if line, _, ok := strings.Cut(string(t.buf), "\n"); ok {
			t.first <- line
			t.first, t.buf = nil, nil
		}
	}
	return t.w.Write(b)
}

// startProxy starts `bin proxy` in front of upstream on a free port and
// returns its URL, its pid and what stops it; its output (a line per finding
// on standard error, a summary at the end) goes to logPath.
func startProxy(bin, upstream, logPath string) (url string, pid int, stopProxy func(), err error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", 0, nil, err
	}
	cmd := exec.Command(bin, "proxy", "--upstream", upstream, "--addr", "127.0.0.1:0", "--fail-on", "none")
	first := make(chan string, 1)
	cmd.Stdout, cmd.Stderr = &lineTap{w: logFile, first: first}, logFile
	if err := started(cmd); err != nil {
		logFile.Close()
		return "", 0, nil, err
	}
	stopProxy = func() { stop(cmd); logFile.Close() }
	var line string
	select {
	case line = <-first:
	case <-time.After(10 * time.Second):
	}
	if m := proxyLine.FindStringSubmatch(line); m != nil {
		return m[1], cmd.Process.Pid, stopProxy, nil
	}
	stopProxy()
	return "", 0, nil, fmt.Errorf("proxy: no URL in the first line within 10 s (%q; log: %s)", line, tailFile(logPath))
}

// runProxyPair loads the routes of px (balance reads and PUT /cob, half the
// rate each) directly on a fresh server, then through `pixsandbox proxy` in
// front of another fresh server, and reads the proxy's findings; with
// -open-loop-proxy-pairs N, N such pairs one after another. Each half
// has a store of its own, so both meet a store of the same age: on one
// server the second half met alone the flushes and compactions that the
// first half's writes brought on.
func runProxyPair(o options, bin, tmp string, px openSpec, out *openOutcome) error {
	for k := 1; k <= o.openProxyPairs; k++ {
		for _, half := range []string{"direct", "proxy"} {
			name := half
			if o.openProxyPairs > 1 {
				name = fmt.Sprintf("%s %d", half, k)
			}
			dir := strings.ReplaceAll(name, " ", "-")
			srv, base, _, err := startServer(bin, "", filepath.Join(tmp, "data-"+dir), filepath.Join(tmp, "server-"+dir+".log"))
			if err != nil {
				return err
			}
			err = proxyHalf(o, bin, tmp, srv.Process.Pid, base, name, half == "proxy", px, out)
			if err == nil {
				out.checked(name, invariants(base))
			}
			stop(srv)
			if err != nil {
				return fmt.Errorf("%s half: %w", name, err)
			}
		}
	}
	return nil
}

// proxyHalf loads px on the server at base (pid), through a proxy started in
// front of it when via is set, and appends the row to out.proxy.
func proxyHalf(o options, bin, tmp string, pid int, base, name string, via bool, px openSpec, out *openOutcome) error {
	f, err := setupFixtures(base, o.accounts)
	if err != nil {
		return err
	}
	if !via {
		out.proxy = append(out.proxy, openRow(o, base, []int{pid}, name, px, rowRoutes(f, px, 'd', 0)))
		return nil
	}
	purl, ppid, stopProxy, err := startProxy(bin, base, filepath.Join(tmp, "proxy.log"))
	if err != nil {
		return err
	}
	defer stopProxy()
	out.proxy = append(out.proxy, openRow(o, purl, []int{pid, ppid}, name, px, rowRoutes(f, px, 'p', 0)))
	var rep struct { // GET /_proxy/findings: its summary's fields, matched without regard to case
		Exchanges int64
		Counts    struct{ Response, State, Request, Upstream int }
	}
	if err := call("GET", purl+"/_proxy/findings?kind=none", "", "", 200, &rep); err != nil {
		out.findings = append(out.findings, "not read: "+err.Error())
		return nil
	}
	c := rep.Counts
	found := fmt.Sprintf("%d exchanges; findings: %d response, %d state, %d request, %d upstream", rep.Exchanges, c.Response, c.State, c.Request, c.Upstream)
	out.findings = append(out.findings, found)
	fmt.Printf("  %-16s %s\n", name, found)
	return nil
}

// runOpenCeiling loads the ceiling, started without pinning, at each rate of
// the rows, and gives each row the ceiling's figures at its rate.
func runOpenCeiling(o options, out *openOutcome) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ceil := exec.Command(self, "ceiling-serve", addr)
	ceil.Stderr = os.Stderr
	if err := started(ceil); err != nil {
		return err
	}
	defer stop(ceil)
	if _, err := waitHealthy("http://"+addr, time.Now(), 5*time.Second); err != nil {
		return err
	}
	var rows []*openResult
	for _, list := range [][]openResult{out.rows, out.proxy} {
		for i := range list {
			rows = append(rows, &list[i])
		}
	}
	done := map[float64]*openResult{}
	for _, r := range rows {
		if c, ok := done[r.Rate]; ok {
			r.Ceiling = c
			continue
		}
		d := o.openCeilingDuration
		if d <= 0 {
			d = r.Duration
		}
		spec := openSpec{parts: []openPart{{route: "ceiling", rate: r.Rate}}, duration: d}
		c := openRow(o, "http://"+addr, []int{ceil.Process.Pid}, "ceiling", spec, []openRoute{ceilingRoute})
		r.Ceiling, done[r.Rate] = &c, &c
	}
	return nil
}

// openTable renders the open-loop rows and the proxy pair as Markdown.
func openTable(out *openOutcome) string {
	if out == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nOpen-loop rows: a fresh server on its default settings, without CPU pinning; requests due at a fixed rate (start + i/rate) from a pool of senders over keep-alive connections (rate × 5 ms of them, at least 2, connected before the first request is due), each timed from when it was due, not from when it was sent. Late sends: requests whose send began more than %s after they were due (every sender busy, or the load's own process short of CPU); their latency still counts from the due time. Other CPU: the share of the machine's CPU used during the row by processes other than the load's own, the server and the proxy; above a few percent the figures are understated. The ceiling's columns: the net/http ceiling loaded the same way at the same rate, without pinning. Ledger invariants on each server after its rows: %s.\n\n", fmtDur(lateAfter), out.inv)
	head := "| %s | rate | for | p50 | p99 | p99.9 | max | > 50 ms | > 100 ms | > 500 ms | late sends | errors | other CPU | ceiling p50 / p99 / max | p99 / ceiling's |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
	if len(out.rows) > 0 {
		fmt.Fprintf(&b, head, "open loop")
		for _, r := range out.rows {
			label := r.Label
			if r.Fraction > 0 {
				label += fmt.Sprintf(" (%.2f of its closed-loop req/s)", r.Fraction)
			}
			openLine(&b, label, r)
			for _, p := range r.Parts {
				openLine(&b, "of which "+p.Label, p)
			}
		}
	}
	if len(out.proxy) >= 2 {
		b.WriteString(proxyTable(head, out))
	}
	b.WriteString(slowTable(out))
	return b.String()
}

func openLine(b *strings.Builder, label string, r openResult) {
	ceil, rel := "—", "—"
	if c := r.Ceiling; c != nil {
		ceil = fmt.Sprintf("%s / %s / %s", fmtDur(c.P50), fmtDur(c.P99), fmtDur(c.Max))
		rel = fmt.Sprintf("%.1f", ratio(r.P99, c.P99))
	}
	fmt.Fprintf(b, "| %s | %.0f | %s | %s | %s | %s | %s | %d | %d | %d | %d | %d | %.0f%% | %s | %s |\n", label, r.Rate, r.Duration, fmtDur(r.P50), fmtDur(r.P99),
		fmtDur(r.P999), fmtDur(r.Max), r.Over[0], r.Over[1], r.Over[2], r.Late, r.Errors, 100*r.OtherCPU, ceil, rel)
}

// slowTable lists, for each row with requests over 50 ms, the seconds they
// were due in (from the row's start, with its wall-clock time to match
// against the server's log and metrics).
func slowTable(out *openOutcome) string {
	var b strings.Builder
	for _, r := range append(slices.Clone(out.rows), out.proxy...) {
		if len(r.Slow) == 0 {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\nWhen the slow requests were due: seconds from the row's start (UTC), requests over 50/100/500 ms in that second, and the slowest.\n\n")
		}
		fmt.Fprintf(&b, "- %s at %.0f/s, from %s: %s\n", r.Name, r.Rate, r.Start.UTC().Format("15:04:05.000Z"), slowList(r.Slow, 30))
	}
	return b.String()
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func signed(d time.Duration) string {
	if d < 0 {
		return "−" + fmtDur(-d)
	}
	return "+" + fmtDur(d)
}
