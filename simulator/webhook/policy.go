package webhook

import "time"

// Policy decides retries. Next returns how long after the failedAttempts-th
// failed attempt of a delivery the next attempt runs, or ok false when no more
// attempts are made. Implementations are deterministic: no jitter, so a
// virtual clock reproduces the same schedule.
type Policy interface {
	Next(failedAttempts int) (wait time.Duration, ok bool)
}

// Schedule is a Policy from a table of waits: after the n-th failed attempt
// the next one runs Schedule[n-1] later, and after len(Schedule) failures no
// more attempts are made. A delivery therefore makes at most len(Schedule)+1
// attempts.
type Schedule []time.Duration

// Next implements Policy.
func (s Schedule) Next(failedAttempts int) (time.Duration, bool) {
	if failedAttempts < 1 || failedAttempts > len(s) {
		return 0, false
	}
	return s[failedAttempts-1], true
}

// DefaultPolicy is the sandbox's retry schedule: the first attempt at once,
// then retries 5 s, 30 s, 2 min, 10 min, 30 min and 2 h after each failure, 7
// attempts in all over about 2 h 43 min of simulation time. The spec shows no
// retry policy ("Events": retry policy not shown); this is the sandbox's
// choice, shorter than Standard Webhooks' or Svix's multi-day schedules so a
// test can walk a failing delivery to its end by advancing a virtual clock.
var DefaultPolicy Policy = Schedule{
	5 * time.Second,
	30 * time.Second,
	2 * time.Minute,
	10 * time.Minute,
	30 * time.Minute,
	2 * time.Hour,
}
