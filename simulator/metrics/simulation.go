package metrics

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The simulation's own series, beyond HTTP: transactions, money, webhook
// attempts, the job agenda, the clock, the request journal. They are read
// from the simulator when /metrics is scraped (a Collector), through the same
// read-only queries the control plane answers, so no write path carries
// metrics code. Transactions and attempts are followed with cursors: each
// scrape reads the transactions created since the last one and re-reads
// those still pending, and the attempts made since the last one.

// SimTransaction is what the metrics read of a transaction.
type SimTransaction struct {
	ID     int64
	Kind   string // CASH_OUT, TRANSFER, PIX_IN, CASH_IN, SPLIT, REFUND_IN, REFUND_OUT
	Status string // PENDING, CONFIRMED, ERROR
	Final  bool
	Amount float64 // BRL
}

// SimAttempt is one webhook delivery attempt.
type SimAttempt struct {
	ID         int64 // webhookLogId: grows with every attempt
	EventType  string
	StatusCode int // 0: no answer
	Duration   time.Duration
}

// SimJob is a pending job of the agenda.
type SimJob struct {
	Kind string
	Due  time.Time // simulation time
}

// SimulationSource is what the collector reads; every method is a read.
type SimulationSource interface {
	// Transaction returns transaction id; found is false when there is none.
	Transaction(ctx context.Context, id int64) (t SimTransaction, found bool, err error)
	// AttemptsAfter returns up to limit attempts with an id above after, in id order.
	AttemptsAfter(ctx context.Context, after int64, limit int) ([]SimAttempt, error)
	// PendingJobs returns up to limit pending jobs.
	PendingJobs(ctx context.Context, limit int) ([]SimJob, error)
	// Clock returns the simulation time now and the clock's mode.
	Clock() (now time.Time, mode string)
	// JournalSize is how many requests the request journal holds.
	JournalSize() int
}

const (
	scanGap        = 32   // transaction ids missing in a row that end a scan
	scanPerScrape  = 5000 // new transactions read at most per scrape
	jobsPerScrape  = 10000
	attemptsPerRun = 1000
	deliverJobKind = "webhook.deliver"
)

// Simulation is the collector of the simulation's series.
type Simulation struct {
	src SimulationSource

	mu        sync.Mutex
	tx        txCounts
	attemptID int64
	attempts  map[[2]string]float64 // event, outcome
	latency   *prometheus.HistogramVec

	descCreated, descFinished, descMoney, descAttempts, descBacklog, descDue, descPending, descLag,
	descClock, descAhead, descJournal, descErrors *prometheus.Desc
	scrapeErrors float64
}

// NewSimulation creates the collector and registers it on reg.
func NewSimulation(reg prometheus.Registerer, src SimulationSource) *Simulation {
	s := &Simulation{src: src, tx: newTxCounts(), attempts: map[[2]string]float64{},
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "pixsandbox_webhook_attempt_duration_seconds",
			Help:    "Wall-clock time a webhook delivery attempt took, until the receiver answered or the attempt failed, by event type.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"event"}),
	}
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	s.descCreated = d("pixsandbox_transactions_created_total", "Transactions created, by kind.", "kind")
	s.descFinished = d("pixsandbox_transactions_finished_total", "Transactions that reached a final status (CONFIRMED or ERROR), by kind and status.", "kind", "status")
	s.descMoney = d("pixsandbox_money_moved_brl_total", "Amount (BRL) of the transactions that were CONFIRMED, by kind.", "kind")
	s.descAttempts = d("pixsandbox_webhook_attempts_total", "Webhook delivery attempts by event type and outcome (2xx, 3xx, 4xx, 5xx, or error when no answer came).", "event", "outcome")
	s.descBacklog = d("pixsandbox_webhook_delivery_backlog", "Webhook deliveries waiting for their next attempt (scheduled delivery jobs).")
	s.descDue = d("pixsandbox_agenda_jobs_due", "Pending jobs whose due time on the simulation clock has passed.")
	s.descPending = d("pixsandbox_agenda_jobs_pending", "Pending jobs by kind.", "kind")
	s.descLag = d("pixsandbox_agenda_job_lag_seconds", "Simulation time since the oldest due job fell due (0 when none is due): how far the job runner is behind the clock.")
	s.descClock = d("pixsandbox_clock_simulation_unix_seconds", "The simulation clock, as Unix seconds, by mode (real or virtual).", "mode")
	s.descAhead = d("pixsandbox_clock_ahead_of_wall_seconds", "How far the simulation clock is ahead of wall time (negative when behind, as a virtual clock at an earlier date is).")
	s.descJournal = d("pixsandbox_journal_requests", "Requests the request journal holds (GET /_sandbox/requests).")
	s.descErrors = d("pixsandbox_metrics_read_errors_total", "Reads of the simulator that failed while collecting these series.")
	reg.MustRegister(s, s.latency)
	return s
}

// Describe implements prometheus.Collector.
func (s *Simulation) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{s.descCreated, s.descFinished, s.descMoney, s.descAttempts, s.descBacklog,
		s.descDue, s.descPending, s.descLag, s.descClock, s.descAhead, s.descJournal, s.descErrors} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: it catches up with the simulator,
// then reports.
func (s *Simulation) Collect(ch chan<- prometheus.Metric) {
	// A scrape that takes long must not hold the registry forever (wall
	// time: an I/O deadline).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.catchUpTransactions(ctx)
	s.catchUpAttempts(ctx)
	now, mode := s.src.Clock()

	for k, v := range s.tx.created {
		ch <- prometheus.MustNewConstMetric(s.descCreated, prometheus.CounterValue, v, k)
	}
	for k, v := range s.tx.finished {
		ch <- prometheus.MustNewConstMetric(s.descFinished, prometheus.CounterValue, v, k[0], k[1])
	}
	for k, v := range s.tx.money {
		ch <- prometheus.MustNewConstMetric(s.descMoney, prometheus.CounterValue, v, k)
	}
	for k, v := range s.attempts {
		ch <- prometheus.MustNewConstMetric(s.descAttempts, prometheus.CounterValue, v, k[0], k[1])
	}
	jobs, err := s.src.PendingJobs(ctx, jobsPerScrape)
	if err != nil {
		s.scrapeErrors++
	}
	due, backlog := 0, 0
	byKind := map[string]int{}
	var lag time.Duration
	for _, j := range jobs {
		byKind[j.Kind]++
		if j.Kind == deliverJobKind {
			backlog++
		}
		if !j.Due.After(now) {
			due++
			lag = max(lag, now.Sub(j.Due))
		}
	}
	for k, n := range byKind {
		ch <- prometheus.MustNewConstMetric(s.descPending, prometheus.GaugeValue, float64(n), k)
	}
	ch <- prometheus.MustNewConstMetric(s.descDue, prometheus.GaugeValue, float64(due))
	ch <- prometheus.MustNewConstMetric(s.descBacklog, prometheus.GaugeValue, float64(backlog))
	ch <- prometheus.MustNewConstMetric(s.descLag, prometheus.GaugeValue, lag.Seconds())
	ch <- prometheus.MustNewConstMetric(s.descClock, prometheus.GaugeValue, float64(now.UnixNano())/1e9, mode)
	// Wall time: this series compares the simulation clock with it.
	ch <- prometheus.MustNewConstMetric(s.descAhead, prometheus.GaugeValue, time.Until(now).Seconds())
	ch <- prometheus.MustNewConstMetric(s.descJournal, prometheus.GaugeValue, float64(s.src.JournalSize()))
	ch <- prometheus.MustNewConstMetric(s.descErrors, prometheus.CounterValue, s.scrapeErrors)
}

// txCounts follows the transactions.
type txCounts struct {
	next     int64 // the first id not read yet
	pending  map[int64]bool
	created  map[string]float64    // kind
	finished map[[2]string]float64 // kind, status
	money    map[string]float64    // kind: BRL of CONFIRMED
}

func newTxCounts() txCounts {
	return txCounts{next: 1, pending: map[int64]bool{}, created: map[string]float64{}, finished: map[[2]string]float64{}, money: map[string]float64{}}
}

func (c *txCounts) finish(t SimTransaction) {
	c.finished[[2]string{t.Kind, t.Status}]++
	if t.Status == "CONFIRMED" {
		c.money[t.Kind] += t.Amount
	}
}

// catchUpTransactions reads the transactions created since the last scrape
// and re-reads the pending ones. A reset of the sandbox (transaction 1 gone
// while counted) starts the counts again.
func (s *Simulation) catchUpTransactions(ctx context.Context) {
	c := &s.tx
	if c.next > 1 {
		if _, found, err := s.src.Transaction(ctx, 1); err == nil && !found {
			*c = newTxCounts()
		}
	}
	for id := range c.pending {
		t, found, err := s.src.Transaction(ctx, id)
		switch {
		case err != nil:
			s.scrapeErrors++
		case !found:
			delete(c.pending, id)
		case t.Final:
			c.finish(t)
			delete(c.pending, id)
		}
	}
	missing := 0
	for n := 0; n < scanPerScrape && missing < scanGap; n++ {
		id := c.next + int64(missing)
		t, found, err := s.src.Transaction(ctx, id)
		if err != nil {
			s.scrapeErrors++
			return
		}
		if !found {
			missing++
			continue
		}
		c.next, missing = id+1, 0
		c.created[t.Kind]++
		if t.Final {
			c.finish(t)
		} else {
			c.pending[t.ID] = true
		}
	}
}

// catchUpAttempts counts the attempts made since the last scrape.
func (s *Simulation) catchUpAttempts(ctx context.Context) {
	for range 10 {
		as, err := s.src.AttemptsAfter(ctx, s.attemptID, attemptsPerRun)
		if err != nil {
			s.scrapeErrors++
			return
		}
		for _, a := range as {
			if a.ID <= s.attemptID {
				continue
			}
			s.attemptID = a.ID
			outcome := "error"
			if a.StatusCode > 0 {
				outcome = strconv.Itoa(a.StatusCode/100) + "xx"
			}
			s.attempts[[2]string{a.EventType, outcome}]++
			s.latency.WithLabelValues(a.EventType).Observe(a.Duration.Seconds())
		}
		if len(as) < attemptsPerRun {
			return
		}
	}
}
