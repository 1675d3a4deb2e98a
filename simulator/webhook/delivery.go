package webhook

import (
	"slices"
	"time"
)

// Status is the state of a delivery.
type Status string

// Delivery statuses. A delivery starts scheduled, moves to retrying after a
// failed attempt that the Policy allows to retry, and ends delivered or
// failed.
const (
	StatusScheduled Status = "scheduled" // planned, no attempt yet
	StatusDelivered Status = "delivered" // an attempt got a 2xx
	StatusRetrying  Status = "retrying"  // the last attempt failed; another is due at NextAttemptAt
	StatusFailed    Status = "failed"    // the last attempt failed and the Policy allows no more
)

// IsValid reports whether s is one of the delivery statuses.
func (s Status) IsValid() bool {
	switch s {
	case StatusScheduled, StatusDelivered, StatusRetrying, StatusFailed:
		return true
	}
	return false
}

// Final reports whether no further attempt follows: delivered or failed.
func (s Status) Final() bool { return s == StatusDelivered || s == StatusFailed }

// Delivery is one event on its way to one target, with every attempt made.
type Delivery struct {
	ID            string // "dlv_" + 26 base32 characters
	EventID       string
	AccountID     int64
	TransactionID int64
	EventType     string
	TargetID      int64 // 0 for a one-off target (resend with a body url)
	// URL, Headers and Secret are copied from the target when the delivery is
	// planned, so later changes to the target do not affect it; but for as
	// long as the target exists, an attempt is signed with the secrets the
	// target has when the attempt is made (WithSecretsOf, Gap G-67).
	URL           string
	Headers       []Header
	Secret        string
	Status        Status
	Attempts      []Attempt // oldest first
	NextAttemptAt time.Time // simulation time the next attempt is due; zero once Status is final
	CreatedAt     time.Time // simulation time
	// InFlight is the id of the attempt handed to the worker pool and not
	// yet recorded; 0 when none. A delivery left in flight by a stop is
	// attempted again on the next start.
	InFlight int64 `json:",omitempty"`

	// PreviousSecret and PreviousSecretUntil are the target's previous
	// secret and the wall-clock end of its rotation's overlap: until then an
	// attempt is signed with both secrets (Target.PreviousSecret).
	PreviousSecret      string    `json:",omitzero"`
	PreviousSecretUntil time.Time `json:",omitzero"`
}

// Attempt is one HTTP request of a delivery and its outcome. It backs the
// spec's webhook log (webhookLogId, sentAt, statusCode of
// POST /api/resend-webhook).
type Attempt struct {
	ID              int64     // the webhookLogId; assigned by the caller before Send (a store sequence)
	Number          int       // 1-based, within its delivery
	SentAt          time.Time // simulation time of the attempt
	URL             string
	RequestHeaders  []Header // the headers this package set, sorted by name; not those the transport adds (Host, Content-Length, …)
	RequestBody     string
	StatusCode      int           // 0 when no HTTP response arrived (timeout, refused, bad URL)
	ResponseExcerpt string        // at most the first 1 KiB of the response body, valid UTF-8
	Error           string        // why no HTTP response arrived; empty when one did
	Duration        time.Duration // wall time from sending the request to closing the response
}

// Plan returns one scheduled delivery per active target of ev.EventType that
// belongs to ev.AccountID, oldest target first, at most MaxActivePerType
// (spec "Events": fan-out, max 3). Each is due at now. It returns nil when no
// target is active.
func Plan(ev Event, targets []Target, now time.Time) []Delivery {
	var own []Target
	for _, t := range targets {
		if t.AccountID == ev.AccountID {
			own = append(own, t)
		}
	}
	var out []Delivery
	for _, t := range ActiveFor(own, ev.EventType) {
		d := OneOff(ev, t.URL, now)
		d.TargetID = t.ID
		d.Headers = slices.Clone(t.Headers)
		out = append(out, d.WithSecretsOf(t))
	}
	return out
}

// OneOff returns a scheduled delivery of ev to url, a temporary target that is
// not stored (the body url of POST /api/resend-webhook): no custom headers,
// unsigned, TargetID 0, due at now. Check url with ValidateURL first.
func OneOff(ev Event, url string, now time.Time) Delivery {
	return Delivery{
		ID:            newDeliveryID(),
		EventID:       ev.ID,
		AccountID:     ev.AccountID,
		TransactionID: ev.TransactionID,
		EventType:     ev.EventType,
		URL:           url,
		Status:        StatusScheduled,
		NextAttemptAt: now,
		CreatedAt:     now,
	}
}

// Success reports whether an HTTP status counts as delivered: 2xx only. A 3xx
// is a failure, since redirects are not followed.
func Success(status int) bool { return success(status) }

// success decides Success; a value so that a build with the faults tag can
// bend it (faults.go).
var success = func(status int) bool { return status >= 200 && status <= 299 }

// Record returns d with a appended to its attempts and its Status and
// NextAttemptAt decided: delivered when a succeeded; otherwise retrying, due
// at a.SentAt plus the wait p gives for the number of failed attempts so far,
// when p allows another attempt; failed when it does not. A nil p means
// DefaultPolicy. d itself is not modified.
func (d Delivery) Record(a Attempt, p Policy) Delivery {
	if p == nil {
		p = DefaultPolicy
	}
	d.Attempts = append(slices.Clip(d.Attempts), a) // never writes into the caller's backing array
	if Success(a.StatusCode) {
		d.Status = StatusDelivered
		d.NextAttemptAt = time.Time{}
		return d
	}
	failed := 0
	for _, x := range d.Attempts {
		if !Success(x.StatusCode) {
			failed++
		}
	}
	if wait, ok := p.Next(failed); ok {
		d.Status = StatusRetrying
		d.NextAttemptAt = a.SentAt.Add(wait)
		return d
	}
	d.Status = StatusFailed
	d.NextAttemptAt = time.Time{}
	return d
}
