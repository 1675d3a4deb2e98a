package process

import (
	"context"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/badgerstore"
)

// ServeProcs is the number of processors the server runs Go code on when it
// differs from Go's default, or 0 to keep the default. A process confined to
// one CPU (taskset, a cpuset) adapts between one and two (ProcGovernor).
// GOMAXPROCS in the environment is left alone, and so is a limit that comes
// from a CPU quota on a machine of several CPUs: two threads there could use
// the quota up early in its period and be throttled for the rest of it.
func ServeProcs(numCPU int, env string) int {
	if env != "" || numCPU != 1 {
		return 0
	}
	return 2
}

// How often the governor looks at the store, and how many looks without a
// write it takes to go back to one processor: 300 ms. Writes closer together
// keep two; with none, no commit can wait behind Badger's background work.
const (
	ProcsTick      = 100 * time.Millisecond
	ProcsIdleTicks = 3
)

// A ProcGovernor runs the server's Go code on two processors while the store
// writes and on one once it has stopped, when the server is confined to one
// CPU (docs/performance.md, "Knobs"; the measurements: docs/performance-log.md,
// "One processor when the store is idle").
//
// Two processors on one core help writes: with one, a goroutine preempted
// while it holds Badger's write lock (the commit that rotates the memtable,
// after allocating the next one's 21 MB arena) waits in the global run queue
// while Badger's flush and its block builders pass the processor between
// them, and every write waits behind it (a run-time trace showed 42 ms of
// such waiting in a 70 ms commit); with two, the kernel shares the core
// between them. They hurt reads: a request whose goroutine sits on the
// thread the kernel has set aside waits for that thread's turn, and balance
// reads had a p99 of 14–18 ms on two processors against 5–6 ms on one.
type ProcGovernor struct {
	stats func() badgerstore.WriterStats
	set   func(int) int // runtime.GOMAXPROCS
	idle  int           // looks without a write before one processor

	last  int64 // operations committed at the last look
	quiet int   // looks since the last write
	cur   int   // processors set
}

// NewProcGovernor starts from two processors (what serve sets before the
// start writes) and the operations committed so far.
func NewProcGovernor(stats func() badgerstore.WriterStats, set func(int) int) *ProcGovernor {
	return &ProcGovernor{stats: stats, set: set, idle: ProcsIdleTicks, last: stats().Operations, cur: 2}
}

// run looks every tick until ctx ends.
func (g *ProcGovernor) Run(ctx context.Context, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			g.step()
		}
	}
}

// step is one look: two processors when the store committed an operation
// since the last look, one after idle looks without.
func (g *ProcGovernor) step() {
	n := g.stats().Operations
	if n != g.last {
		g.last, g.quiet = n, 0
	} else if g.quiet < g.idle {
		g.quiet++
	}
	want := 2
	if g.quiet >= g.idle {
		want = 1
	}
	if want != g.cur {
		g.set(want)
		g.cur = want
	}
}
