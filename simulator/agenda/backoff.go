package agenda

import "time"

// retryDelays are the waits before each retry of a failing job: the first
// failure is retried after retryDelays[0], and so on. A job that fails again
// after the last delay is given up.
var retryDelays = [MaxRetries]time.Duration{
	1 * time.Second,
	5 * time.Second,
	30 * time.Second,
	2 * time.Minute,
	10 * time.Minute,
}

// MaxRetries is how many times a failing job is retried before it is given up.
// A job therefore runs at most 1+MaxRetries times.
const MaxRetries = 5

// backoff returns the wait before retrying a job that has failed attempts
// times. ok is false when the job has used up its retries.
func backoff(attempts int) (d time.Duration, ok bool) {
	if attempts < 1 || attempts > len(retryDelays) {
		return 0, false
	}
	return retryDelays[attempts-1], true
}
