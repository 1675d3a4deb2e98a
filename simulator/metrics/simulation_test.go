package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// fakeSource is a simulator held in fields.
type fakeSource struct {
	activity SimActivity
	jobs     map[string]int64
	jobsErr  error
	due      []time.Time // due times of the pending jobs, earliest first
	now      time.Time
	journal  int
}

func (f *fakeSource) Activity() SimActivity { return f.activity }

func (f *fakeSource) PendingJobs(context.Context) (map[string]int64, error) {
	return f.jobs, f.jobsErr
}

func (f *fakeSource) DueJobs(_ context.Context, until time.Time, limit int) (int, time.Time, error) {
	n := 0
	for _, d := range f.due {
		if d.After(until) || n == limit {
			break
		}
		n++
	}
	if n == 0 {
		return 0, time.Time{}, nil
	}
	return n, f.due[0], nil
}

func (f *fakeSource) Clock() (time.Time, string) { return f.now, "virtual" }
func (f *fakeSource) JournalSize() int           { return f.journal }

func TestSimulation_Collect(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	bounds := []float64{.005, .01}
	src := &fakeSource{now: now, journal: 7,
		activity: SimActivity{
			Created:    map[string]int64{"CASH_OUT": 2, "CASH_IN": 1},
			Finished:   map[SimFinish]int64{{"CASH_IN", "CONFIRMED"}: 1, {"CASH_OUT", "ERROR"}: 1},
			MovedCents: map[string]int64{"CASH_IN": 1250},
			Attempts:   map[SimAnswer]int64{{"cash_in", 2}: 1, {"cash_in", 5}: 1, {"cash_out", 0}: 1},
			AttemptDurations: map[string]Histogram{
				"cash_in":  {Bounds: bounds, Counts: []int64{1, 1, 0}, Sum: .004},
				"cash_out": {Bounds: bounds, Counts: []int64{0, 0, 1}, Sum: 5},
			},
		},
		jobs: map[string]int64{"webhook.deliver": 1, "pixout.settle": 2, "cob.expire": 0},
		due:  []time.Time{now.Add(-90 * time.Second), now.Add(-10 * time.Second), now.Add(time.Hour)},
	}
	reg := prometheus.NewRegistry()
	sim := NewSimulation(reg, src)

	expect := func(name string, want string) {
		t.Helper()
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), name); err != nil {
			t.Error(err)
		}
	}
	expect("pixsandbox_transactions_created_total", `
# HELP pixsandbox_transactions_created_total Transactions created since the process started, in every workspace, by kind.
# TYPE pixsandbox_transactions_created_total counter
pixsandbox_transactions_created_total{kind="CASH_IN"} 1
pixsandbox_transactions_created_total{kind="CASH_OUT"} 2
`)
	expect("pixsandbox_transactions_finished_total", `
# HELP pixsandbox_transactions_finished_total Transactions that reached a final status (CONFIRMED or ERROR) since the process started, in every workspace, by kind and status.
# TYPE pixsandbox_transactions_finished_total counter
pixsandbox_transactions_finished_total{kind="CASH_IN",status="CONFIRMED"} 1
pixsandbox_transactions_finished_total{kind="CASH_OUT",status="ERROR"} 1
`)
	expect("pixsandbox_money_moved_brl_total", `
# HELP pixsandbox_money_moved_brl_total Amount (BRL) of the transactions that were CONFIRMED since the process started, in every workspace, by kind.
# TYPE pixsandbox_money_moved_brl_total counter
pixsandbox_money_moved_brl_total{kind="CASH_IN"} 12.5
`)
	expect("pixsandbox_webhook_attempts_total", `
# HELP pixsandbox_webhook_attempts_total Webhook delivery attempts since the process started, in every workspace, by event type and outcome (2xx, 3xx, 4xx, 5xx, or error when no answer came).
# TYPE pixsandbox_webhook_attempts_total counter
pixsandbox_webhook_attempts_total{event="cash_in",outcome="2xx"} 1
pixsandbox_webhook_attempts_total{event="cash_in",outcome="5xx"} 1
pixsandbox_webhook_attempts_total{event="cash_out",outcome="error"} 1
`)
	expect("pixsandbox_webhook_attempt_duration_seconds", `
# HELP pixsandbox_webhook_attempt_duration_seconds Wall-clock time a webhook delivery attempt took, until the receiver answered or the attempt failed, in every workspace, by event type.
# TYPE pixsandbox_webhook_attempt_duration_seconds histogram
pixsandbox_webhook_attempt_duration_seconds_bucket{event="cash_in",le="0.005"} 1
pixsandbox_webhook_attempt_duration_seconds_bucket{event="cash_in",le="0.01"} 2
pixsandbox_webhook_attempt_duration_seconds_bucket{event="cash_in",le="+Inf"} 2
pixsandbox_webhook_attempt_duration_seconds_sum{event="cash_in"} 0.004
pixsandbox_webhook_attempt_duration_seconds_count{event="cash_in"} 2
pixsandbox_webhook_attempt_duration_seconds_bucket{event="cash_out",le="0.005"} 0
pixsandbox_webhook_attempt_duration_seconds_bucket{event="cash_out",le="0.01"} 0
pixsandbox_webhook_attempt_duration_seconds_bucket{event="cash_out",le="+Inf"} 1
pixsandbox_webhook_attempt_duration_seconds_sum{event="cash_out"} 5
pixsandbox_webhook_attempt_duration_seconds_count{event="cash_out"} 1
`)
	expect("pixsandbox_agenda_jobs_pending", `
# HELP pixsandbox_agenda_jobs_pending Pending jobs of the default workspace, by kind.
# TYPE pixsandbox_agenda_jobs_pending gauge
pixsandbox_agenda_jobs_pending{kind="cob.expire"} 0
pixsandbox_agenda_jobs_pending{kind="pixout.settle"} 2
pixsandbox_agenda_jobs_pending{kind="webhook.deliver"} 1
`)
	expect("pixsandbox_agenda_jobs_due", "# HELP pixsandbox_agenda_jobs_due Pending jobs of the default workspace whose due time on its simulation clock has passed (counted up to 10000).\n# TYPE pixsandbox_agenda_jobs_due gauge\npixsandbox_agenda_jobs_due 2\n")
	expect("pixsandbox_agenda_job_lag_seconds", "# HELP pixsandbox_agenda_job_lag_seconds Simulation time since the default workspace's oldest due job fell due (0 when none is due): how far its job runner is behind its clock.\n# TYPE pixsandbox_agenda_job_lag_seconds gauge\npixsandbox_agenda_job_lag_seconds 90\n")
	expect("pixsandbox_webhook_delivery_backlog", "# HELP pixsandbox_webhook_delivery_backlog Webhook deliveries of the default workspace waiting for their next attempt (scheduled delivery jobs).\n# TYPE pixsandbox_webhook_delivery_backlog gauge\npixsandbox_webhook_delivery_backlog 1\n")
	expect("pixsandbox_journal_requests", "# HELP pixsandbox_journal_requests Requests the request journal holds (GET /_sandbox/requests).\n# TYPE pixsandbox_journal_requests gauge\npixsandbox_journal_requests 7\n")
	expect("pixsandbox_metrics_read_errors_total", "# HELP pixsandbox_metrics_read_errors_total Reads of the simulator that failed while collecting these series.\n# TYPE pixsandbox_metrics_read_errors_total counter\npixsandbox_metrics_read_errors_total 0\n")

	// No job due: no lag. A failed read of the pending jobs is counted and
	// leaves their series out.
	src.due = src.due[2:]
	src.jobsErr = errors.New("store closed")
	expect("pixsandbox_agenda_job_lag_seconds", "# HELP pixsandbox_agenda_job_lag_seconds Simulation time since the default workspace's oldest due job fell due (0 when none is due): how far its job runner is behind its clock.\n# TYPE pixsandbox_agenda_job_lag_seconds gauge\npixsandbox_agenda_job_lag_seconds 0\n")
	if n := testutil.CollectAndCount(sim, "pixsandbox_agenda_jobs_pending"); n != 0 {
		t.Errorf("%d pending-job series after a failed read, want none", n)
	}
	expect("pixsandbox_metrics_read_errors_total", "# HELP pixsandbox_metrics_read_errors_total Reads of the simulator that failed while collecting these series.\n# TYPE pixsandbox_metrics_read_errors_total counter\npixsandbox_metrics_read_errors_total 3\n")
}
