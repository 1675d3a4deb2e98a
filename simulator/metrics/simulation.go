package metrics

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The simulation's own series, beyond HTTP: transactions, money, webhook
// attempts, the job agenda, the clock, the request journal. The counts of
// transactions, money and attempts are kept as the simulator commits its
// work (the store counts each write once its batch has committed), so a
// scrape reads them in memory: its cost does not grow with the data. They
// count from the start of the process, as Prometheus counters do; a sandbox
// reset leaves them. The pending jobs by kind are kept the same way and
// follow a reset; the due jobs are counted from the earliest, up to
// dueLimit.

// SimActivity is what the simulator's committed work added up to since the
// process started.
type SimActivity struct {
	Created  map[string]int64    // transactions created, by kind
	Finished map[SimFinish]int64 // transactions that reached a final status
	// MovedCents is the amount, in centavos, of the transactions that were
	// CONFIRMED, by kind.
	MovedCents map[string]int64
	Attempts   map[SimAnswer]int64 // webhook attempts
	// AttemptDurations are the webhook attempts' durations (wall time) by
	// event type.
	AttemptDurations map[string]Histogram
}

// SimFinish is a transaction's kind (CASH_OUT, TRANSFER, PIX_IN, CASH_IN,
// SPLIT, REFUND_IN, REFUND_OUT) and its final status (CONFIRMED, ERROR).
type SimFinish struct{ Kind, Status string }

// SimAnswer is a webhook attempt's event type and the class of its answer:
// the HTTP status code divided by 100, 0 when no answer came.
type SimAnswer struct {
	Event string
	Class int
}

// SimulationSource is what the collector reads at a scrape; every method
// reads, at a cost that does not grow with the transactions the store holds.
type SimulationSource interface {
	// Activity returns the counts of the simulator's committed work.
	Activity() SimActivity
	// PendingJobs returns the pending jobs by kind.
	PendingJobs(ctx context.Context) (map[string]int64, error)
	// DueJobs counts the pending jobs due at or before until, at most limit
	// of them, and gives the earliest due time among them.
	DueJobs(ctx context.Context, until time.Time, limit int) (n int, oldest time.Time, err error)
	// Clock returns the simulation time now and the clock's mode.
	Clock() (now time.Time, mode string)
	// JournalSize is how many requests the request journal holds.
	JournalSize() int
}

const (
	// dueLimit bounds the count of due jobs: a backlog larger than it is
	// reported as dueLimit, and a scrape reads at most that many job keys.
	dueLimit       = 10000
	deliverJobKind = "webhook.deliver"
)

// Simulation is the collector of the simulation's series.
type Simulation struct {
	src        SimulationSource
	readErrors atomic.Int64

	descCreated, descFinished, descMoney, descAttempts, descLatency, descBacklog, descDue, descPending, descLag,
	descClock, descAhead, descJournal, descErrors *prometheus.Desc
}

// NewSimulation creates the collector and registers it on reg.
func NewSimulation(reg prometheus.Registerer, src SimulationSource) *Simulation {
	s := &Simulation{src: src}
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	s.descCreated = d("pixsandbox_transactions_created_total", "Transactions created since the process started, in every workspace, by kind.", "kind")
	s.descFinished = d("pixsandbox_transactions_finished_total", "Transactions that reached a final status (CONFIRMED or ERROR) since the process started, in every workspace, by kind and status.", "kind", "status")
	s.descMoney = d("pixsandbox_money_moved_brl_total", "Amount (BRL) of the transactions that were CONFIRMED since the process started, in every workspace, by kind.", "kind")
	s.descAttempts = d("pixsandbox_webhook_attempts_total", "Webhook delivery attempts since the process started, in every workspace, by event type and outcome (2xx, 3xx, 4xx, 5xx, or error when no answer came).", "event", "outcome")
	s.descLatency = d("pixsandbox_webhook_attempt_duration_seconds", "Wall-clock time a webhook delivery attempt took, until the receiver answered or the attempt failed, in every workspace, by event type.", "event")
	s.descBacklog = d("pixsandbox_webhook_delivery_backlog", "Webhook deliveries of the default workspace waiting for their next attempt (scheduled delivery jobs).")
	s.descDue = d("pixsandbox_agenda_jobs_due", "Pending jobs of the default workspace whose due time on its simulation clock has passed (counted up to "+strconv.Itoa(dueLimit)+").")
	s.descPending = d("pixsandbox_agenda_jobs_pending", "Pending jobs of the default workspace, by kind.", "kind")
	s.descLag = d("pixsandbox_agenda_job_lag_seconds", "Simulation time since the default workspace's oldest due job fell due (0 when none is due): how far its job runner is behind its clock.")
	s.descClock = d("pixsandbox_clock_simulation_unix_seconds", "The default workspace's simulation clock, as Unix seconds, by mode (real or virtual).", "mode")
	s.descAhead = d("pixsandbox_clock_ahead_of_wall_seconds", "How far the default workspace's simulation clock is ahead of wall time (negative when behind, as a virtual clock at an earlier date is).")
	s.descJournal = d("pixsandbox_journal_requests", "Requests the request journal holds (GET /_sandbox/requests).")
	s.descErrors = d("pixsandbox_metrics_read_errors_total", "Reads of the simulator that failed while collecting these series.")
	reg.MustRegister(s)
	return s
}

// Describe implements prometheus.Collector.
func (s *Simulation) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{s.descCreated, s.descFinished, s.descMoney, s.descAttempts, s.descLatency, s.descBacklog,
		s.descDue, s.descPending, s.descLag, s.descClock, s.descAhead, s.descJournal, s.descErrors} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: it reports the counts the
// simulator keeps and the jobs due now.
func (s *Simulation) Collect(ch chan<- prometheus.Metric) {
	// A read that waits long must not hold the registry forever (wall
	// time: an I/O deadline).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	now, mode := s.src.Clock()

	a := s.src.Activity()
	for k, v := range a.Created {
		ch <- prometheus.MustNewConstMetric(s.descCreated, prometheus.CounterValue, float64(v), k)
	}
	for k, v := range a.Finished {
		ch <- prometheus.MustNewConstMetric(s.descFinished, prometheus.CounterValue, float64(v), k.Kind, k.Status)
	}
	for k, v := range a.MovedCents {
		ch <- prometheus.MustNewConstMetric(s.descMoney, prometheus.CounterValue, float64(v)/100, k)
	}
	for k, v := range a.Attempts {
		outcome := "error"
		if k.Class > 0 {
			outcome = strconv.Itoa(k.Class) + "xx"
		}
		ch <- prometheus.MustNewConstMetric(s.descAttempts, prometheus.CounterValue, float64(v), k.Event, outcome)
	}
	for ev, h := range a.AttemptDurations {
		ch <- constHistogram(s.descLatency, h, ev)
	}

	backlog := int64(0)
	if jobs, err := s.src.PendingJobs(ctx); err != nil {
		s.readErrors.Add(1)
	} else {
		for k, n := range jobs {
			ch <- prometheus.MustNewConstMetric(s.descPending, prometheus.GaugeValue, float64(n), k)
		}
		backlog = jobs[deliverJobKind]
	}
	due, oldest, err := s.src.DueJobs(ctx, now, dueLimit)
	if err != nil {
		s.readErrors.Add(1)
	}
	var lag time.Duration
	if due > 0 {
		lag = max(0, now.Sub(oldest))
	}
	ch <- prometheus.MustNewConstMetric(s.descDue, prometheus.GaugeValue, float64(due))
	ch <- prometheus.MustNewConstMetric(s.descBacklog, prometheus.GaugeValue, float64(backlog))
	ch <- prometheus.MustNewConstMetric(s.descLag, prometheus.GaugeValue, lag.Seconds())
	ch <- prometheus.MustNewConstMetric(s.descClock, prometheus.GaugeValue, float64(now.UnixNano())/1e9, mode)
	// Wall time: this series compares the simulation clock with it.
	ch <- prometheus.MustNewConstMetric(s.descAhead, prometheus.GaugeValue, time.Until(now).Seconds())
	ch <- prometheus.MustNewConstMetric(s.descJournal, prometheus.GaugeValue, float64(s.src.JournalSize()))
	ch <- prometheus.MustNewConstMetric(s.descErrors, prometheus.CounterValue, float64(s.readErrors.Load()))
}
