package process

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// The memory budget (--memory-limit): what the server's resident memory is
// meant to stay under under any sustained load. It sets Go's soft memory
// limit (the heap's share: the budget less what the store maps from its files
// and the runtime's own) and sizes the store's memtables and caches
// (badgerstore.Options.Memory); after a load stops, the heap is collected
// and given back to the system (ReleaseWhenIdle).

// DefaultMemoryLimit is the default budget. A budget under 512 MiB selects
// the store's lean profile (badgerstore.memoryOptions): peak RSS about a
// third lower under the write routes at the same CPU per request, but
// sustained writes stall for up to a second every 25 to 30 s
// (docs/performance.md, "Memory budget").
const DefaultMemoryLimit = 1 << 30

// MinMemoryLimit is the smallest budget a server runs in.
const MinMemoryLimit = 128 << 20

// MappedReserve is the part of the budget left outside Go's heap: the pages
// of the store's files mapped into the process (memtable logs, tables) and
// the runtime's stacks and metadata.
func MappedReserve(limit int64) int64 { return max(limit/4, 48<<20) }

// ByteSize is a flag value in bytes, written as 268435456, 256MiB, 1GiB,
// 512MB or 64k (binary multiples either way).
type ByteSize int64

func (b *ByteSize) String() string { return FormatBytes(int64(*b)) }

func (b *ByteSize) Set(s string) error {
	n, err := ParseBytes(s)
	if err != nil {
		return err
	}
	*b = ByteSize(n)
	return nil
}

func ParseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1}} {
		if v, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(v), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<50)/mult {
		return 0, fmt.Errorf("%q is not a size: write bytes or a number with MiB or GiB, e.g. 256MiB", s)
	}
	return n * mult, nil
}

func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	}
	return strconv.FormatInt(n, 10)
}

// ApplyMemoryLimit sets Go's soft memory limit from the budget, unless
// GOMEMLIMIT says otherwise; it returns the limit in force.
func ApplyMemoryLimit(limit int64) int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1)
	}
	goLimit := limit - MappedReserve(limit)
	debug.SetMemoryLimit(goLimit)
	return goLimit
}

// ReleaseWhenIdle gives the heap back to the system once writes stop: every
// period it reads the store's write count (writes), and when a period with
// writes is followed by one without, it collects the heap and returns the
// freed pages (debug.FreeOSMemory), so the resident memory falls toward its
// idle figure within about two periods of a load ending rather than
// whenever the runtime's background scavenger gets to it.
func ReleaseWhenIdle(ctx context.Context, period time.Duration, writes func() int64) {
	t := time.NewTicker(period) // wall time: the process's memory, not the simulation
	defer t.Stop()
	releaseIdle(ctx, t.C, writes, debug.FreeOSMemory)
}

// releaseIdle is ReleaseWhenIdle on the periods ticks marks.
func releaseIdle(ctx context.Context, ticks <-chan time.Time, writes func() int64, release func()) {
	last, busy := writes(), false
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
		}
		n := writes()
		switch {
		case n != last:
			busy = true
		case busy:
			release()
			busy = false
		}
		last = n
	}
}

// ServePprof serves Go's profiles (net/http/pprof) on addr, a listener of
// its own, when PIXSANDBOX_PPROF names one (e.g. 127.0.0.1:6060): for
// profiling the server under load (docs/performance.md). Nothing guards it;
// bind it to loopback.
func ServePprof(addr string, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	log.Info("profiles served", "url", "http://"+addr+"/debug/pprof/")
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		log.Warn("profiles not served", "addr", addr, "err", err)
	}
}

// ProxyMemoryLimit is the proxy's soft memory limit (`pixsandbox proxy`,
// ApplyProxyMemoryLimit): a bound on its heap whatever is live, the capture
// budget (64 MiB) and the state model's windows (about 10 MB under a steady
// load, in the judging process when there is one) included. Judging inline,
// its collector keeps Go's default target: a target of 800 (collections a
// tenth as often) was the proxy's default for a time, and on a quiet host,
// three alternating runs each, it added 6.2-11.0 ms to the p99 at 1,000
// exchanges a second against 7.4-7.8 ms at Go's 100, for a peak RSS of
// 182-191 MB against 61-62 (docs/performance-log.md, "What the proxy's
// judging costs the row"). Judging in a process, the proxy and its judging
// process collect at SplitProxyGC.
const ProxyMemoryLimit = 512 << 20

// SplitProxyGC is the collector's target of both processes of a proxy that
// judges in a process of its own (--judging process): the proxy's live heap
// is a few megabytes (connections, buffers, the exchanges in flight), the
// judging process's the state model's windows (about 10 MB under a steady
// load), so collecting a quarter as often costs each a few tens of MB at
// most. Against Go's 100 in both, alternating runs of the latency row gave a
// lower added p99 in five of five pairs, with about 4 % less CPU an exchange
// (docs/performance-log.md, "The judging in a process of its own").
const SplitProxyGC = 400

// ApplySplitProxyGC sets the collector's target to SplitProxyGC unless the
// environment sets one (GOGC); it returns the target in force.
func ApplySplitProxyGC(lookup func(string) (string, bool)) int {
	if v, ok := lookup("GOGC"); ok && v != "" {
		cur := debug.SetGCPercent(100) // reads the target the runtime took from GOGC
		debug.SetGCPercent(cur)
		return cur
	}
	debug.SetGCPercent(SplitProxyGC)
	return SplitProxyGC
}

// ApplyProxyMemoryLimit sets Go's soft memory limit for the proxy unless the
// environment sets one (GOMEMLIMIT); it returns the limit in force.
func ApplyProxyMemoryLimit(lookup func(string) (string, bool)) int64 {
	if v, ok := lookup("GOMEMLIMIT"); !ok || v == "" {
		debug.SetMemoryLimit(ProxyMemoryLimit)
	}
	return debug.SetMemoryLimit(-1)
}
