package sandboxapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// Secret rotation of webhook targets and listeners (Gap G-67): a new
// signing secret, and the old one kept signing for an overlap of wall time
// (webhook.RotateSecret says why wall time).

// rotation is a rotate-secret request: the new secret ("" for a fresh one)
// and the overlap.
type rotation struct {
	secret  string
	overlap time.Duration
}

// decodeRotation reads the optional body of a rotate-secret route:
// {"overlap": "24h" or a number of seconds, "secret": "whsec_…"}, both
// optional; no body takes the defaults (webhook.DefaultRotationOverlap, a
// fresh secret).
func decodeRotation(r *http.Request) (rotation, error) {
	var req struct {
		Overlap any     `json:"overlap"` // a string (Go duration) or a number (seconds)
		Secret  *string `json:"secret"`
	}
	if r.ContentLength != 0 {
		if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
			return rotation{}, err
		}
	}
	rot := rotation{secret: text(req.Secret), overlap: webhook.DefaultRotationOverlap}
	var vs []pix.Violation
	if req.Overlap != nil {
		d, v := parseOverlap(req.Overlap)
		if v != nil {
			vs = append(vs, *v)
		}
		rot.overlap = d
	}
	if rot.secret != "" && !webhook.ValidSecret(rot.secret) {
		vs = append(vs, pix.Violation{Field: "secret",
			Message: `must be a Standard Webhooks secret: "whsec_" and the standard base64 of 24 to 64 bytes`})
	}
	if len(vs) > 0 {
		return rotation{}, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	return rot, nil
}

// parseOverlap reads "overlap": a Go duration as a string ("24h", "90m",
// "0s") or a number of seconds, from 0 to webhook.MaxRotationOverlap; or
// says what is wrong with it.
func parseOverlap(v any) (time.Duration, *pix.Violation) {
	var d time.Duration
	err := errors.New("not a duration")
	switch v := v.(type) {
	case json.Number:
		d, err = time.ParseDuration(v.String() + "s")
	case string:
		d, err = time.ParseDuration(strings.TrimSpace(v))
	}
	if err != nil {
		return 0, &pix.Violation{Field: "overlap",
			Message: `must be a duration such as "24h", "90m" or "0s", or a number of seconds, from 0 to 7 days (168h)`}
	}
	if pe, ok := errors.AsType[*pix.Error](webhook.CheckOverlap(d)); ok {
		return 0, &pe.Violations[0]
	}
	return d, nil
}

// rotatedTargetDTO is a target after a rotation, with its new secret: the
// only answer that shows a target's secret.
type rotatedTargetDTO struct {
	targetDTO
	Secret string `json:"secret"`
}

// previousSecretExpiresAt is the wall-clock end of a target's overlap, ""
// when it keeps no previous secret.
func previousSecretExpiresAt(t webhook.Target) string {
	if t.PreviousSecret == "" {
		return ""
	}
	return wire.Time(t.PreviousSecretUntil)
}

// handleTargetRotate serves POST /_sandbox/webhook-targets/{id}/rotate-secret.
func (cp *ControlPlane) handleTargetRotate(r *http.Request) (any, error) {
	n, err := strconv.ParseInt(mux.Vars(r)["id"], 10, 64)
	if err != nil || n <= 0 {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "id", Message: "must be a positive number"})
	}
	rot, err := decodeRotation(r)
	if err != nil {
		return nil, err
	}
	ts, err := cp.sb(r.Context()).RotateWebhookSecrets(r.Context(), []int64{n}, rot.secret, rot.overlap)
	if err != nil {
		return nil, err
	}
	return rotatedTargetDTO{targetDTO: newTargetDTO(ts[0]), Secret: ts[0].Secret}, nil
}

// handleListenerRotate serves POST /_sandbox/listeners/{id}/rotate-secret:
// every target of the listener gets the same new secret, with the overlap,
// and so do the targets a renewal makes later (for accounts created since).
func (cp *ControlPlane) handleListenerRotate(r *http.Request) (any, error) {
	l, err := cp.listenerByPath(r)
	if err != nil {
		return nil, err
	}
	rot, err := decodeRotation(r)
	if err != nil {
		return nil, err
	}
	ls := cp.listeners
	if rot.secret == "" {
		rot.secret = webhook.NewSecret()
	}
	// Renewals that add accounts read l.secret; none runs while the targets
	// turn to the new secret.
	l.grow.Lock()
	defer l.grow.Unlock()
	ls.mu.Lock()
	targets, old := l.targets, l.secret
	ls.mu.Unlock()
	if rot.secret == old {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "secret", Message: "must differ from the listener's current secret"})
	}
	ids := make([]int64, len(targets))
	for i, t := range targets {
		ids[i] = t.ID
	}
	// Targets removed meanwhile (a reset) are skipped, and none is no error:
	// the listener's next targets take the new secret.
	rotated, err := cp.sb(r.Context()).RotateWebhookSecrets(r.Context(), ids, rot.secret, rot.overlap)
	if err != nil && !isNotFound(err) {
		return nil, err
	}
	until := ""
	if len(rotated) > 0 {
		until = previousSecretExpiresAt(rotated[0])
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l.secret, l.previousSecretExpiresAt = rot.secret, until
	for i, t := range l.targets {
		for _, out := range rotated {
			if out.ID == t.ID {
				l.targets[i] = out
			}
		}
	}
	return l.dto(), nil
}
