package pix

import "time"

// JobStatus is the status of a scheduled job.
type JobStatus string

// Job statuses.
const (
	JobScheduled JobStatus = "scheduled"
	JobDone      JobStatus = "done"
)

// JobBacklog is how far the job runner is behind the simulation clock.
type JobBacklog struct {
	Due       int       // pending jobs due at or before now (counted up to MaxBacklogCount)
	OldestDue time.Time // the earliest due time of those; zero when none
	// Lag is now minus OldestDue: how far behind the runner is, in
	// simulation time.
	Lag time.Duration
	// WebhooksPending counts the webhook attempts running or queued in the
	// worker pool.
	WebhooksPending int
}

// MaxBacklogCount bounds the count of JobBacklog.Due.
const MaxBacklogCount = 1_000_000

// JobReport is a scheduled or finished job.
type JobReport struct {
	ID     string
	Kind   string
	Due    time.Time
	Status JobStatus
	RanAt  time.Time // zero until done
	Note   string
}
