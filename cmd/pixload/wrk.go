package main

// The wrk runs: one per route, its Lua script and its summary.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// wrkSummary is the line the done() hook of every script prints.
type wrkSummary struct {
	Requests   int64   `json:"requests"`
	DurationUS float64 `json:"duration"`
	P50        float64 `json:"p50"`
	P90        float64 `json:"p90"`
	P99        float64 `json:"p99"`
	Max        float64 `json:"max"`
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
	if waited := waitQuiet(o.quietWait, pid); waited > 2*time.Second {
		fmt.Printf("  %-16s waited %s for the machine and the server to go quiet\n", rt.name, fmtDur(waited))
	}
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
	writer0, werr := readWriter(base)
	start := time.Now()
	busy0, total0 := cpuTicks()
	proc0 := procTicks(pid)
	cmd := pinned(m.wrkCPU, "wrk", "-t", strconv.Itoa(m.threads), "-c", strconv.Itoa(o.connections),
		"-d", fmt.Sprintf("%ds", int(o.duration.Seconds())), "--timeout", "5s", "-s", script, base)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if rt.onStart != nil {
		rt.onStart()
	}
	err := started(cmd)
	if err == nil {
		err = cmd.Wait()
		children.Delete(cmd)
	}
	elapsed := time.Since(start)
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
		P90:       time.Duration(s.P90 * float64(time.Microsecond)),
		P99:       time.Duration(s.P99 * float64(time.Microsecond)),
		Max:       time.Duration(s.Max * float64(time.Microsecond)),
		Requests:  s.Requests,
		Errors:    s.Connect + s.Read + s.Write + s.Status + s.Timeout,
		PeakRSS:   peakRSS,
		Note:      rt.note,
	}
	if writer1, err := readWriter(base); werr == nil && err == nil {
		w := writer1.since(writer0, elapsed)
		r.Writer = &w
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
  io.write(string.format('PIXLOAD {"requests":%d,"duration":%d,"p50":%d,"p90":%d,"p99":%d,"max":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"extra":%d,"extrafail":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
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
	// onStart, when set, is called once the machine is quiet, right before
	// wrk starts: what watches the route runs from then on.
	onStart func()
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
