package main

import (
	"context"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/metrics"
)

// simulationSource feeds the simulation's series (simulator/metrics): the
// activity counters from every workspace's store together (each counts its
// committed work as the writer commits it; badgerstore.ServerActivity), the
// jobs and the clock from the default workspace's, and the HTTP server's
// request journal.
type simulationSource struct {
	store *badgerstore.Store
	sim   *simulator.Simulator
	srv   *httpapi.Server
}

func (s simulationSource) Activity() metrics.SimActivity {
	a := s.store.ServerActivity()
	out := metrics.SimActivity{Created: make(map[string]int64, len(a.Created)), Finished: make(map[metrics.SimFinish]int64, len(a.Finished)),
		MovedCents: make(map[string]int64, len(a.Moved)), Attempts: make(map[metrics.SimAnswer]int64, len(a.Attempts)),
		AttemptDurations: make(map[string]metrics.Histogram, len(a.AttemptDurations))}
	for k, n := range a.Created {
		out.Created[string(k)] = n
	}
	for k, n := range a.Finished {
		out.Finished[metrics.SimFinish{Kind: string(k.Kind), Status: string(k.Status)}] = n
	}
	for k, c := range a.Moved {
		out.MovedCents[string(k)] = int64(c)
	}
	for k, n := range a.Attempts {
		out.Attempts[metrics.SimAnswer{Event: k.Event, Class: k.Class}] = n
	}
	for ev, d := range a.AttemptDurations {
		out.AttemptDurations[ev] = histogram(badgerstore.AttemptBounds[:], d)
	}
	return out
}

func (s simulationSource) PendingJobs(ctx context.Context) (map[string]int64, error) {
	return s.store.PendingJobsByKind(ctx)
}

func (s simulationSource) DueJobs(ctx context.Context, until time.Time, limit int) (int, time.Time, error) {
	return s.store.CountDue(ctx, until, limit)
}

func (s simulationSource) Clock() (time.Time, string) {
	c := s.sim.ClockNow()
	return c.Now, c.Mode
}

func (s simulationSource) JournalSize() int { return s.srv.JournalSize() }

// histogram converts a store histogram over bounds for the series.
func histogram(bounds []time.Duration, d badgerstore.Durations) metrics.Histogram {
	secs := make([]float64, len(bounds))
	for i, b := range bounds {
		secs[i] = b.Seconds()
	}
	return metrics.Histogram{Bounds: secs, Counts: d.Counts, Sum: d.Sum.Seconds()}
}

// storeStats converts the store's writer counts for the store's series.
func storeStats(st badgerstore.WriterStats) metrics.StoreStats {
	bounds := badgerstore.DurationBounds[:]
	return metrics.StoreStats{Batches: st.Commits, Operations: st.Operations,
		Apply: histogram(bounds, st.Apply), Commit: histogram(bounds, st.Commit)}
}
