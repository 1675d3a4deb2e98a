package core

import (
	"context"
	"encoding/json"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refund"
	"github.com/pixsandbox/pixsandbox/simulator/webhook/outbox"
)

// Agenda job kinds, <resource>.<verb>.
const (
	// jobMarker does nothing but record that it ran. The control plane schedules it
	// so users and the conformance suite can watch time travel run jobs.
	jobMarker = "sandbox.marker"
)

type markerPayload struct {
	Note string `json:"note,omitempty"`
}

func (s *Simulator) registerJobs() {
	s.agenda.Handle(jobSettle, s.settleJob)
	s.agenda.Handle(jobExpire, s.expireJob)
	s.agenda.Handle(outbox.JobDeliver, s.deliveries.Deliver)
	s.agenda.Handle(jobCobExpire, s.cobExpireJob)
	s.agenda.Handle(jobCashInExpire, s.cashInExpireJob)
	s.agenda.Handle(jobAutoPay, s.autoPayJob)
	s.agenda.Handle(jobSplitsRun, s.splitsRunJob)
	s.agenda.Handle(refund.JobSettle, s.refunds.SettleJob(s.store))
	for kind, h := range s.meds.Handlers(s.store) {
		s.agenda.Handle(kind, h)
	}
	s.agenda.Handle(jobMarker, func(_ context.Context, now time.Time, j agenda.Job) error {
		s.log.Info("marker job ran", "job", j.ID, "due", j.Due, "now", now)
		return nil
	})
}

// ScheduleMarker schedules a marker job to run after delay on the simulation clock.
func (s *Simulator) ScheduleMarker(ctx context.Context, delay time.Duration, note string) (pix.JobReport, error) {
	if delay < 0 {
		return pix.JobReport{}, pix.Errorf(pix.KindInvalid, pix.CodeInvalidRequest, "seconds must not be negative")
	}
	payload, err := json.Marshal(markerPayload{Note: note})
	if err != nil {
		return pix.JobReport{}, err
	}
	j, err := s.agenda.Schedule(ctx, agenda.Job{Kind: jobMarker, Due: s.clock.Now().Add(delay), Payload: payload})
	if err != nil {
		return pix.JobReport{}, err
	}
	return jobReport(j, pix.JobScheduled, time.Time{}), nil
}

// Job reports a pending or finished job; finished jobs other than markers report
// only their id and when they ran.
func (s *Simulator) Job(ctx context.Context, id string) (pix.JobReport, error) {
	j, ok, err := s.store.GetJob(ctx, id)
	if err != nil {
		return pix.JobReport{}, err
	}
	if ok {
		return jobReport(j, pix.JobScheduled, time.Time{}), nil
	}
	ranAt, ok, err := s.store.DoneJob(ctx, id)
	if err != nil {
		return pix.JobReport{}, err
	}
	if !ok {
		return pix.JobReport{}, pix.Errorf(pix.KindNotFound, pix.CodeNotFound, "job %q not found", id)
	}
	return pix.JobReport{ID: id, Status: pix.JobDone, RanAt: ranAt}, nil
}

// PendingJobs lists up to limit pending jobs in due order.
func (s *Simulator) PendingJobs(ctx context.Context, limit int) ([]pix.JobReport, error) {
	jobs, err := s.store.ListJobs(ctx, limit)
	if err != nil {
		return nil, err
	}
	out := make([]pix.JobReport, len(jobs))
	for i, j := range jobs {
		out[i] = jobReport(j, pix.JobScheduled, time.Time{})
	}
	return out, nil
}

// JobBacklog reports the jobs already due and not yet run, and the webhook
// attempts under way: how far the runner is behind the clock.
func (s *Simulator) JobBacklog(ctx context.Context) (pix.JobBacklog, error) {
	now := s.clock.Now()
	n, oldest, err := s.store.CountDue(ctx, now, pix.MaxBacklogCount)
	if err != nil {
		return pix.JobBacklog{}, err
	}
	b := pix.JobBacklog{Due: n, WebhooksPending: s.pool.Pending()}
	if n > 0 {
		b.OldestDue = oldest
		b.Lag = max(0, now.Sub(b.OldestDue))
	}
	return b, nil
}

func jobReport(j agenda.Job, st pix.JobStatus, ranAt time.Time) pix.JobReport {
	r := pix.JobReport{ID: j.ID, Kind: j.Kind, Due: j.Due, Status: st, RanAt: ranAt}
	if j.Kind == jobMarker {
		var p markerPayload
		if json.Unmarshal(j.Payload, &p) == nil {
			r.Note = p.Note
		}
	}
	return r
}
