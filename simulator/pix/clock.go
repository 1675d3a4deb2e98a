package pix

import "time"

// ClockReport is the simulation clock as the control plane shows it.
type ClockReport struct {
	Now     time.Time
	Mode    string // "real" or "virtual"
	JobsRun int    // jobs run by the move that produced this report
	// WebhooksPending counts the webhook attempts still under way (or
	// queued) when the move answered.
	WebhooksPending int
}

// ClockWait says what a clock move waits for besides the state-changing jobs
// it runs on the way.
type ClockWait string

// Clock move waits.
const (
	// ClockWaitJobs answers once the jobs have run; webhook attempts they
	// started go on in the background.
	ClockWaitJobs ClockWait = ""
	// ClockWaitWebhooks also waits, at each instant on the way, for the
	// webhook attempts due then, so retries run at their own simulation
	// times, and answers once every attempt due by the new time is made.
	ClockWaitWebhooks ClockWait = "webhooks"
)

// MaxClockTime is the latest time the simulation clock may be moved to. Every
// timestamp the simulator stores or renders is RFC 3339, which ends with year
// 9999; the margin leaves room for the deadlines added to the clock (tokens,
// settlements, expiries, refund windows, certificates, and control-plane jobs
// of up to 292 years, the longest time.Duration).
var MaxClockTime = time.Date(9000, 1, 1, 0, 0, 0, 0, time.UTC)

// TimeLayout is the one timestamp format of responses and webhooks: ISO 8601 in
// UTC with milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"
