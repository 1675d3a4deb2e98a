package sandboxapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

type clockDTO struct {
	Now             string `json:"now"`
	Mode            string `json:"mode"`
	JobsRun         *int   `json:"jobsRun,omitempty"`
	WebhooksPending *int   `json:"webhooksPending,omitempty"`
}

func newClockDTO(c pix.ClockReport, moved bool) clockDTO {
	d := clockDTO{Now: c.Now.UTC().Format(time.RFC3339Nano), Mode: c.Mode}
	if moved {
		n, w := c.JobsRun, c.WebhooksPending
		d.JobsRun, d.WebhooksPending = &n, &w
	}
	return d
}

func (cp *ControlPlane) handleClockGet(r *http.Request) (any, error) {
	return newClockDTO(cp.sb(r.Context()).ClockNow(), false), nil
}

// delayRequest names a span of simulation time as {"seconds": N} or
// {"duration": "30m"} (Go duration syntax), exactly one of them.
type delayRequest struct {
	Seconds  *strictjson.Number `json:"seconds"`
	Duration *string            `json:"duration"`
}

// parse reads the span: seconds (a non-negative number) or a Go duration.
func (d delayRequest) parse() (time.Duration, error) {
	bad := func(field, msg string) error {
		return pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: field, Message: msg})
	}
	switch {
	case d.Seconds != nil && d.Duration != nil:
		return 0, bad("seconds", "give seconds or duration, not both")
	case d.Seconds != nil:
		v, err := time.ParseDuration(d.Seconds.String() + "s")
		if err != nil || v < 0 {
			return 0, bad("seconds", "must be a non-negative number of seconds")
		}
		return v, nil
	case d.Duration != nil:
		v, err := time.ParseDuration(strings.TrimSpace(*d.Duration))
		if err != nil || v < 0 {
			return 0, bad("duration", `must be a non-negative duration such as "90s", "30m" or "72h"`)
		}
		return v, nil
	}
	return 0, bad("seconds", `is required: send {"seconds": N} or {"duration": "30m"}`)
}

// clockWait reads the optional "wait" of a clock move: absent or "jobs", or
// "webhooks".
func clockWait(w *string) (pix.ClockWait, error) {
	switch {
	case w == nil || *w == "jobs":
		return pix.ClockWaitJobs, nil
	case *w == string(pix.ClockWaitWebhooks):
		return pix.ClockWaitWebhooks, nil
	}
	return "", pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "wait", Message: `must be "jobs" (the default) or "webhooks"`})
}

func (cp *ControlPlane) handleClockAdvance(r *http.Request) (any, error) {
	var req struct {
		Seconds  *strictjson.Number `json:"seconds"`
		Duration *string            `json:"duration"`
		Wait     *string            `json:"wait"`
	}
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	d, err := delayRequest{Seconds: req.Seconds, Duration: req.Duration}.parse()
	if err != nil {
		return nil, err
	}
	wait, err := clockWait(req.Wait)
	if err != nil {
		return nil, err
	}
	c, err := cp.sb(r.Context()).AdvanceClock(r.Context(), d, wait)
	if err != nil {
		return nil, err
	}
	return newClockDTO(c, true), nil
}

func (cp *ControlPlane) handleClockSet(r *http.Request) (any, error) {
	var req struct {
		Now  *string `json:"now"`
		Wait *string `json:"wait"`
	}
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	if req.Now == nil {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "now", Message: "is required (ISO 8601, e.g. 2026-03-02T12:00:00Z)"})
	}
	t, err := parseTime(*req.Now, "now")
	if err != nil {
		return nil, err
	}
	wait, err := clockWait(req.Wait)
	if err != nil {
		return nil, err
	}
	c, err := cp.sb(r.Context()).SetClock(r.Context(), t, wait)
	if err != nil {
		return nil, err
	}
	return newClockDTO(c, true), nil
}
