package webhook

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Event types a target registers for. Spec "Events > Registration event types".
const (
	EventCashIn      = "cash_in"      // PIX received
	EventCashOut     = "cash_out"     // PIX sent
	EventRefundIn    = "refund_in"    // refund of a received payment requested
	EventRefundOut   = "refund_out"   // refund received
	EventMedCreated  = "med_created"  // MED opened
	EventMedAccepted = "med_accepted" // MED refund request approved
	EventMedRejected = "med_rejected" // MED refund request rejected
)

// EventTypes lists every registration event type, in the spec's order.
var EventTypes = []string{
	EventCashIn, EventCashOut, EventRefundIn, EventRefundOut,
	EventMedCreated, EventMedAccepted, EventMedRejected,
}

// MaxActivePerType is how many active targets an account may have per event
// type; an event fans out to at most this many. Spec "Limits > Webhook URLs".
const MaxActivePerType = 3

// MaxHeaders is how many custom headers a target may carry. Spec "Limits >
// Webhook custom headers".
const MaxHeaders = 5

// BlockedHeaders are the header names a target may not register, compared
// case-insensitively. Spec "POST /api/webhooks".
var BlockedHeaders = []string{"host", "content-length", "connection", "transfer-encoding", "content-type", "user-agent"}

// secretPrefix starts every Standard Webhooks signing secret.
const secretPrefix = "whsec_"

// Bounds of a signing secret's key, in bytes after base64 decoding (Standard
// Webhooks: at least 24, at most 64).
const (
	minSecretBytes = 24
	maxSecretBytes = 64
)

// Header is one custom header sent with every delivery to a target.
type Header struct {
	Key   string
	Value string
}

// Target is a registered webhook URL of an account for one event type. Spec
// "Resources > Webhook registration".
type Target struct {
	ID        int64 // assigned by the store; 0 until persisted
	AccountID int64
	URL       string
	EventType string   // one of EventTypes
	Headers   []Header // custom headers, in registration order
	// Secret is a Standard Webhooks signing secret ("whsec_" + base64 of 24 to
	// 64 bytes). Empty means deliveries are unsigned, the default.
	Secret    string
	Active    bool
	CreatedAt time.Time // simulation time
	UpdatedAt time.Time // simulation time

	// PreviousSecret is the secret a rotation replaced (RotateSecret): it
	// signs deliveries too, after Secret, until PreviousSecretUntil, the end
	// of the rotation's overlap in wall time (Gap G-67). Empty, with a zero
	// PreviousSecretUntil, on a target never rotated with an overlap; both
	// are left out of the stored record then, which reads as the records
	// written before rotation existed.
	PreviousSecret      string    `json:",omitzero"`
	PreviousSecretUntil time.Time `json:",omitzero"`
}

// ValidateTarget checks a registration against the intended shape of spec
// "POST /api/webhooks": the URL is an absolute http(s) URL with a host (https
// only when requireHTTPS, as the spec's public route wants; the control plane
// passes false so loopback receivers work), EventType is one of EventTypes, at
// most MaxHeaders headers, header names are non-empty HTTP tokens and not
// blocked, names and values hold no CR, LF or other control characters, and
// Secret is empty or a valid Standard Webhooks secret.
//
// It returns nil or a *pix.Error of KindInvalid, code pix.CodeInvalidRequest,
// with one pix.Violation per problem ("url", "eventType", "headers",
// "headers[2].key", "headers[2].value", "secret").
//
// The check is syntactic: it resolves no hostname and accepts private,
// loopback and metadata addresses. Where those must be refused, a Dispatcher
// with DenyPrivate checks every target again at dial time, on the resolved IP
// address, which a check here could not do reliably, since a name may resolve
// to another address by the time a delivery is sent (DNS rebinding).
func ValidateTarget(t Target, requireHTTPS bool) error {
	var vs []pix.Violation
	if msg := checkURL(t.URL, requireHTTPS); msg != "" {
		vs = append(vs, pix.Violation{Field: "url", Message: msg})
	}
	switch {
	case t.EventType == "":
		vs = append(vs, pix.Violation{Field: "eventType", Message: "is required"})
	case !slices.Contains(EventTypes, t.EventType):
		vs = append(vs, pix.Violation{Field: "eventType", Message: "must be one of " + strings.Join(EventTypes, ", ")})
	}
	if len(t.Headers) > MaxHeaders {
		vs = append(vs, pix.Violation{Field: "headers", Message: fmt.Sprintf("must have at most %d items, got %d", MaxHeaders, len(t.Headers))})
	}
	for i, h := range t.Headers {
		if msg := checkHeaderName(h.Key); msg != "" {
			vs = append(vs, pix.Violation{Field: fmt.Sprintf("headers[%d].key", i), Message: msg})
		}
		if hasControl(h.Value) {
			vs = append(vs, pix.Violation{Field: fmt.Sprintf("headers[%d].value", i), Message: "must not contain CR, LF or other control characters"})
		}
	}
	if t.Secret != "" && !ValidSecret(t.Secret) {
		vs = append(vs, pix.Violation{Field: "secret", Message: fmt.Sprintf("must be %q followed by the standard base64 of %d to %d bytes", secretPrefix, minSecretBytes, maxSecretBytes)})
	}
	if len(vs) > 0 {
		return pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	return nil
}

// ValidateURL checks a delivery URL alone, as ValidateTarget does, for a
// one-off target such as the body url of POST /api/resend-webhook. It returns
// nil or a *pix.Error of KindInvalid with a "url" violation.
//
// Like ValidateTarget, it is syntactic: the address a URL reaches is checked
// at dial time, by a Dispatcher with DenyPrivate.
func ValidateURL(raw string, requireHTTPS bool) error {
	if msg := checkURL(raw, requireHTTPS); msg != "" {
		return pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "url", Message: msg})
	}
	return nil
}

// checkURL returns why raw is not an acceptable delivery URL, or "".
func checkURL(raw string, requireHTTPS bool) string {
	want := "an absolute http or https URL"
	if requireHTTPS {
		want = "an absolute https URL"
	}
	if raw == "" {
		return "is required"
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return "must be " + want
	}
	switch u.Scheme { // url.Parse lower-cases the scheme
	case "https":
	case "http":
		if requireHTTPS {
			return "must use https"
		}
	default:
		return "must be " + want
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return "must be " + want + " with a host"
	}
	return ""
}

// checkHeaderName returns why name cannot be a custom header name, or "".
func checkHeaderName(name string) string {
	if name == "" {
		return "must not be empty"
	}
	if strings.ContainsAny(name, "\r\n") {
		return "must not contain CR or LF"
	}
	for i := 0; i < len(name); i++ {
		if !isTokenChar(name[i]) {
			return "must be an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)"
		}
	}
	if slices.ContainsFunc(BlockedHeaders, func(b string) bool { return strings.EqualFold(b, name) }) {
		return "is a blocked header name (" + strings.Join(BlockedHeaders, ", ") + ")"
	}
	return ""
}

// isTokenChar reports whether c may appear in an HTTP field name (RFC 9110
// "token").
func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// hasControl reports whether s holds a control character other than a
// horizontal tab; net/http refuses to send such a header value.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return true
		}
	}
	return false
}

// ValidSecret reports whether s is a Standard Webhooks signing secret:
// "whsec_" followed by the standard (padded) base64 of 24 to 64 bytes.
func ValidSecret(s string) bool {
	rest, ok := strings.CutPrefix(s, secretPrefix)
	if !ok {
		return false
	}
	key, err := base64.StdEncoding.Strict().DecodeString(rest)
	return err == nil && len(key) >= minSecretBytes && len(key) <= maxSecretBytes
}

// Register applies the spec's registration rules (spec "POST /api/webhooks")
// to t given the account's existing targets; targets of other accounts in
// existing are ignored. t is expected to have passed ValidateTarget.
//
// Re-registering a URL already registered for t's event type (the same URL
// string) updates that target: its headers are replaced, its secret too when t
// has another (the contract route sets none, and keeps a control-plane
// secret; a secret set so ends the overlap of a rotation), it is made
// active, UpdatedAt is now, and the other targets are left unchanged.
// Otherwise a new active target is returned (ID 0, CreatedAt and UpdatedAt
// now), unless the account already has MaxActivePerType active targets of that
// type: then a *pix.Error of KindInvalid with a "url" violation. Reactivating
// an inactive target counts against the same limit.
//
// Register is pure: the caller persists the result and assigns the ID of a new
// target. isNew reports whether the target is new.
func Register(existing []Target, t Target, now time.Time) (result Target, isNew bool, err error) {
	active := 0
	match := -1
	for i, e := range existing {
		if e.AccountID != t.AccountID || e.EventType != t.EventType {
			continue
		}
		if e.Active {
			active++
		}
		if e.URL == t.URL && (match < 0 || (e.Active && !existing[match].Active)) {
			match = i // prefer an active registration of the URL
		}
	}
	full := pix.Invalid(pix.CodeInvalidRequest, pix.Violation{
		Field:   "url",
		Message: fmt.Sprintf("cannot be added: at most %d active URLs per event type, and %s has %d", MaxActivePerType, t.EventType, active),
	})
	if match >= 0 {
		r := existing[match]
		if !r.Active && active >= MaxActivePerType {
			return Target{}, false, full
		}
		r.Headers = slices.Clone(t.Headers)
		if t.Secret != "" && t.Secret != r.Secret { // the contract route carries no secret: keep the one set
			// Setting a secret replaces every secret at once; only a rotation
			// keeps the old one for an overlap (RotateSecret).
			r.Secret, r.PreviousSecret, r.PreviousSecretUntil = t.Secret, "", time.Time{}
		}
		r.Active = true
		r.UpdatedAt = now
		return r, false, nil
	}
	if active >= MaxActivePerType {
		return Target{}, false, full
	}
	r := t
	r.ID = 0
	r.Headers = slices.Clone(t.Headers)
	r.Active = true
	r.CreatedAt = now
	r.UpdatedAt = now
	return r, true, nil
}

// ActiveFor returns the active targets of eventType, oldest first (CreatedAt,
// then ID), at most MaxActivePerType: the fan-out of one event. The caller
// passes one account's targets.
func ActiveFor(targets []Target, eventType string) []Target {
	var out []Target
	for _, t := range targets {
		if t.Active && t.EventType == eventType {
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b Target) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	if len(out) > MaxActivePerType {
		out = out[:MaxActivePerType]
	}
	return out
}

// NewSecret returns a fresh Standard Webhooks signing secret: "whsec_"
// followed by the base64 of 32 bytes from crypto/rand.
func NewSecret() string {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read never fails (it crashes the program instead)
	return secretPrefix + base64.StdEncoding.EncodeToString(key)
}
