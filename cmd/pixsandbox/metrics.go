package main

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/metrics"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// simulationSource feeds the simulation's series (simulator/metrics) from
// the simulator's read-only queries and the HTTP server's request journal.
type simulationSource struct {
	sim *simulator.Simulator
	srv *httpapi.Server
}

func (s simulationSource) Transaction(ctx context.Context, id int64) (metrics.SimTransaction, bool, error) {
	t, err := s.sim.Transaction(ctx, strconv.FormatInt(id, 10))
	var pe *pix.Error
	if errors.As(err, &pe) && pe.Kind == pix.KindNotFound {
		return metrics.SimTransaction{}, false, nil
	}
	if err != nil {
		return metrics.SimTransaction{}, false, err
	}
	return metrics.SimTransaction{ID: t.ID, Kind: string(t.Kind), Status: string(t.Status), Final: t.Final(),
		Amount: float64(t.Amount) / 100}, true, nil
}

func (s simulationSource) AttemptsAfter(ctx context.Context, after int64, limit int) ([]metrics.SimAttempt, error) {
	ds, err := s.sim.WebhookDeliveriesAfterAttempt(ctx, 0, after, limit)
	if err != nil {
		return nil, err
	}
	var out []metrics.SimAttempt
	for _, d := range ds {
		for _, a := range d.Attempts {
			if a.ID > after {
				out = append(out, metrics.SimAttempt{ID: a.ID, EventType: d.EventType, StatusCode: a.StatusCode, Duration: a.Duration})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (s simulationSource) PendingJobs(ctx context.Context, limit int) ([]metrics.SimJob, error) {
	js, err := s.sim.PendingJobs(ctx, limit)
	if err != nil {
		return nil, err
	}
	out := make([]metrics.SimJob, len(js))
	for i, j := range js {
		out[i] = metrics.SimJob{Kind: j.Kind, Due: j.Due}
	}
	return out, nil
}

func (s simulationSource) Clock() (time.Time, string) {
	c := s.sim.ClockNow()
	return c.Now, c.Mode
}

func (s simulationSource) JournalSize() int { return s.srv.JournalSize() }

// storeStats converts the store's writer counts for the store's series.
func storeStats(st badgerstore.WriterStats) metrics.StoreStats {
	bounds := make([]float64, len(badgerstore.DurationBounds))
	for i, b := range badgerstore.DurationBounds {
		bounds[i] = b.Seconds()
	}
	hist := func(d badgerstore.Durations) metrics.Histogram {
		return metrics.Histogram{Bounds: bounds, Counts: d.Counts, Sum: d.Sum.Seconds()}
	}
	return metrics.StoreStats{Batches: st.Commits, Operations: st.Operations, Apply: hist(st.Apply), Commit: hist(st.Commit)}
}
