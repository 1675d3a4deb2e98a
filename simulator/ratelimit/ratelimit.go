// Package ratelimit counts requests per key in fixed one-minute windows of
// simulation time, and words the 429 that refuses one above its limit. A
// window is a minute of the simulation clock from its first second (the
// instant truncated to the minute), not a sliding minute before each request:
// a key's count starts again at the start of every minute. The core limits
// GET /api/med with it, and simulator/webhook/outbox the webhook resends.
package ratelimit

import (
	"strconv"
	"sync"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Limiter counts requests per account in fixed one-minute windows of
// simulation time (STYLE: rate-limit windows come from the simulation clock, so
// they are testable by advancing it). Counts are kept in memory: a restart
// starts every window afresh.
type Limiter struct {
	mu      sync.Mutex
	windows map[string]rateWindow
}

type rateWindow struct {
	start time.Time
	count int
}

// Allow records a request of key at now and reports whether it is within limit
// per minute; when it is not, retryAfter is the wait until the window ends.
func (r *Limiter) Allow(key string, limit int, now time.Time) (ok bool, retryAfter time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.windows == nil {
		r.windows = map[string]rateWindow{}
	}
	start := now.Truncate(time.Minute)
	w := r.windows[key]
	if !w.start.Equal(start) {
		w = rateWindow{start: start}
	}
	w.count++
	r.windows[key] = w
	if w.count > limit {
		return false, start.Add(time.Minute).Sub(now)
	}
	return true, 0
}

// Refusal is the 429 of a rate limit. The wait is rounded up to whole
// seconds, so a client that waits Retry-After is in the next window.
func Refusal(what string, limit int, retryAfter time.Duration) error {
	secs := int((retryAfter + time.Second - 1) / time.Second)
	return &pix.Error{Kind: pix.KindRateLimited, Code: pix.CodeRateLimited,
		Message: what + " is limited to " + strconv.Itoa(limit) + " requests per minute; retry in " + strconv.Itoa(secs) + "s",
		Details: map[string]any{"retryAfterSeconds": secs}}
}

// Reset forgets every window.
func (r *Limiter) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.windows = nil
}
