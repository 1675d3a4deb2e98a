package webhook

import (
	"fmt"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Secret rotation (Gap G-67, docs/spec-gaps.md). Rotating a target's secret
// gives it a new one and keeps the old one for an overlap: until the
// overlap ends, every delivery to the target carries two v1 signatures in
// its webhook-signature header, the new secret's first ("v1,<new>
// v1,<old>"), so a receiver still configured with the old secret and one
// already configured with the new one both verify it (Standard Webhooks
// receivers accept a header when any of its v1 signatures matches). After
// the overlap only the new secret signs.
//
// The overlap runs on the wall clock, the clock of webhook-timestamp and of
// the receiver's deployment of the new secret, never on simulation time: a
// virtual clock that stands still would keep the old secret valid for ever,
// and an advance of 30 days to expire a charge would end, in an instant, the
// overlap a partner is rolling its secret through.

// Bounds of a rotation's overlap.
const (
	// DefaultRotationOverlap is the overlap of a rotation that names none:
	// one day, as Stripe's roll of an endpoint secret.
	DefaultRotationOverlap = 24 * time.Hour
	// MaxRotationOverlap is the longest overlap a rotation may ask for.
	MaxRotationOverlap = 7 * 24 * time.Hour
)

// CheckOverlap returns nil when d is an overlap a rotation may ask for: 0
// (the old secret stops signing at once) to MaxRotationOverlap. Otherwise
// a *pix.Error of KindInvalid with an "overlap" violation.
func CheckOverlap(d time.Duration) error {
	if d < 0 || d > MaxRotationOverlap {
		return pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "overlap",
			Message: fmt.Sprintf("must be from 0s to %s (7 days), got %s", formatHours(MaxRotationOverlap), d)})
	}
	return nil
}

// formatHours writes a whole number of hours as "168h".
func formatHours(d time.Duration) string { return fmt.Sprintf("%dh", int64(d/time.Hour)) }

// RotateSecret returns t signing with secret from now on and, when t had a
// secret and overlap is positive, also with that secret until wall plus
// overlap (PreviousSecret, PreviousSecretUntil). A previous secret of an
// earlier rotation is dropped: a target has at most two secrets. A target
// without a secret gets its first one, and no overlap, since nothing was
// signed before. t's UpdatedAt is left to the caller (simulation time).
//
// RotateSecret is pure: the caller checks secret (ValidSecret) and overlap
// (CheckOverlap) first and persists the result.
func RotateSecret(t Target, secret string, wall time.Time, overlap time.Duration) Target {
	t.PreviousSecret, t.PreviousSecretUntil = "", time.Time{}
	if t.Secret != "" && overlap > 0 {
		t.PreviousSecret, t.PreviousSecretUntil = t.Secret, wall.Add(overlap)
	}
	t.Secret = secret
	return t
}

// WithSecretsOf returns d signed, from its next attempt on, with the
// secrets t has now: the current one and, during a rotation's overlap, the
// previous one. Deliveries take their target's secrets at every attempt, so
// a retry of a delivery first signed before a rotation carries the new
// signature.
func (d Delivery) WithSecretsOf(t Target) Delivery {
	d.Secret, d.PreviousSecret, d.PreviousSecretUntil = t.Secret, t.PreviousSecret, t.PreviousSecretUntil
	return d
}

// signingSecrets returns the secrets an attempt of d signed at wall carries,
// in the order of its webhook-signature header: Secret, then PreviousSecret
// while its overlap runs (wall before PreviousSecretUntil). None when Secret
// is empty: the delivery is unsigned.
func (d Delivery) signingSecrets(wall time.Time) []string {
	if d.Secret == "" {
		return nil
	}
	if d.PreviousSecret != "" && wall.Before(d.PreviousSecretUntil) {
		return []string{d.Secret, d.PreviousSecret}
	}
	return []string{d.Secret}
}
