package metrics

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// fakeSource is a simulator held in maps.
type fakeSource struct {
	txs      map[int64]SimTransaction
	attempts []SimAttempt
	jobs     []SimJob
	now      time.Time
	journal  int
}

func (f *fakeSource) Transaction(_ context.Context, id int64) (SimTransaction, bool, error) {
	t, ok := f.txs[id]
	return t, ok, nil
}

func (f *fakeSource) AttemptsAfter(_ context.Context, after int64, limit int) ([]SimAttempt, error) {
	var out []SimAttempt
	for _, a := range f.attempts {
		if a.ID > after && len(out) < limit {
			out = append(out, a)
		}
	}
	return out, nil
}

func (f *fakeSource) PendingJobs(context.Context, int) ([]SimJob, error) { return f.jobs, nil }
func (f *fakeSource) Clock() (time.Time, string)                         { return f.now, "virtual" }
func (f *fakeSource) JournalSize() int                                   { return f.journal }

func TestSimulation_Collect(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	src := &fakeSource{now: now, journal: 7, txs: map[int64]SimTransaction{
		1: {ID: 1, Kind: "CASH_OUT", Status: "PENDING"},
		2: {ID: 2, Kind: "CASH_IN", Status: "CONFIRMED", Final: true, Amount: 12.5},
		// 3 is missing (a gap); 4 exists
		4: {ID: 4, Kind: "CASH_OUT", Status: "ERROR", Final: true, Amount: 3},
	}, attempts: []SimAttempt{
		{ID: 1, EventType: "cash_in", StatusCode: 200, Duration: 3 * time.Millisecond},
		{ID: 2, EventType: "cash_in", StatusCode: 503, Duration: time.Millisecond},
		{ID: 3, EventType: "cash_out", StatusCode: 0, Duration: 5 * time.Second},
	}, jobs: []SimJob{
		{Kind: "webhook.deliver", Due: now.Add(-90 * time.Second)},
		{Kind: "pixout.settle", Due: now.Add(-10 * time.Second)},
		{Kind: "pixout.settle", Due: now.Add(time.Hour)},
	}}
	reg := prometheus.NewRegistry()
	NewSimulation(reg, src)

	expect := func(name string, want string) {
		t.Helper()
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), name); err != nil {
			t.Error(err)
		}
	}
	expect("pixsandbox_transactions_created_total", `
# HELP pixsandbox_transactions_created_total Transactions created, by kind.
# TYPE pixsandbox_transactions_created_total counter
pixsandbox_transactions_created_total{kind="CASH_IN"} 1
pixsandbox_transactions_created_total{kind="CASH_OUT"} 2
`)
	// Transaction 1 settles; 5 is created: the next scrape sees both.
	src.txs[1] = SimTransaction{ID: 1, Kind: "CASH_OUT", Status: "CONFIRMED", Final: true, Amount: 10}
	src.txs[5] = SimTransaction{ID: 5, Kind: "PIX_IN", Status: "CONFIRMED", Final: true, Amount: 1}
	expect("pixsandbox_transactions_finished_total", `
# HELP pixsandbox_transactions_finished_total Transactions that reached a final status (CONFIRMED or ERROR), by kind and status.
# TYPE pixsandbox_transactions_finished_total counter
pixsandbox_transactions_finished_total{kind="CASH_IN",status="CONFIRMED"} 1
pixsandbox_transactions_finished_total{kind="CASH_OUT",status="CONFIRMED"} 1
pixsandbox_transactions_finished_total{kind="CASH_OUT",status="ERROR"} 1
pixsandbox_transactions_finished_total{kind="PIX_IN",status="CONFIRMED"} 1
`)
	expect("pixsandbox_money_moved_brl_total", `
# HELP pixsandbox_money_moved_brl_total Amount (BRL) of the transactions that were CONFIRMED, by kind.
# TYPE pixsandbox_money_moved_brl_total counter
pixsandbox_money_moved_brl_total{kind="CASH_IN"} 12.5
pixsandbox_money_moved_brl_total{kind="CASH_OUT"} 10
pixsandbox_money_moved_brl_total{kind="PIX_IN"} 1
`)
	expect("pixsandbox_webhook_attempts_total", `
# HELP pixsandbox_webhook_attempts_total Webhook delivery attempts by event type and outcome (2xx, 3xx, 4xx, 5xx, or error when no answer came).
# TYPE pixsandbox_webhook_attempts_total counter
pixsandbox_webhook_attempts_total{event="cash_in",outcome="2xx"} 1
pixsandbox_webhook_attempts_total{event="cash_in",outcome="5xx"} 1
pixsandbox_webhook_attempts_total{event="cash_out",outcome="error"} 1
`)
	expect("pixsandbox_agenda_jobs_due", "# HELP pixsandbox_agenda_jobs_due Pending jobs whose due time on the simulation clock has passed.\n# TYPE pixsandbox_agenda_jobs_due gauge\npixsandbox_agenda_jobs_due 2\n")
	expect("pixsandbox_agenda_job_lag_seconds", "# HELP pixsandbox_agenda_job_lag_seconds Simulation time since the oldest due job fell due (0 when none is due): how far the job runner is behind the clock.\n# TYPE pixsandbox_agenda_job_lag_seconds gauge\npixsandbox_agenda_job_lag_seconds 90\n")
	expect("pixsandbox_webhook_delivery_backlog", "# HELP pixsandbox_webhook_delivery_backlog Webhook deliveries waiting for their next attempt (scheduled delivery jobs).\n# TYPE pixsandbox_webhook_delivery_backlog gauge\npixsandbox_webhook_delivery_backlog 1\n")
	expect("pixsandbox_journal_requests", "# HELP pixsandbox_journal_requests Requests the request journal holds (GET /_sandbox/requests).\n# TYPE pixsandbox_journal_requests gauge\npixsandbox_journal_requests 7\n")
	if n := testutil.CollectAndCount(reg, "pixsandbox_webhook_attempt_duration_seconds"); n != 2 {
		t.Errorf("%d latency series, want one per event type", n)
	}

	// A reset of the sandbox: the transactions are gone, and a new one is
	// made; counting starts again.
	src.txs = map[int64]SimTransaction{}
	expect("pixsandbox_transactions_created_total", "")
	src.txs[1] = SimTransaction{ID: 1, Kind: "TRANSFER", Status: "PENDING"}
	expect("pixsandbox_transactions_created_total", `
# HELP pixsandbox_transactions_created_total Transactions created, by kind.
# TYPE pixsandbox_transactions_created_total counter
pixsandbox_transactions_created_total{kind="TRANSFER"} 1
`)
}
