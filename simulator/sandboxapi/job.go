package sandboxapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

type jobDTO struct {
	ID     string `json:"id"`
	Kind   string `json:"kind,omitempty"`
	Due    string `json:"due,omitempty"`
	Status string `json:"status"`
	RanAt  string `json:"ranAt,omitempty"`
	Note   string `json:"note,omitempty"`
}

func newJobDTO(j pix.JobReport) jobDTO {
	d := jobDTO{ID: j.ID, Kind: j.Kind, Status: string(j.Status), Note: j.Note}
	if !j.Due.IsZero() {
		d.Due = wire.Time(j.Due)
	}
	if !j.RanAt.IsZero() {
		d.RanAt = wire.Time(j.RanAt)
	}
	if d.Kind == "sandbox.marker" {
		d.Kind = "marker"
	}
	return d
}

func (cp *ControlPlane) handleJobCreate(r *http.Request) (any, error) {
	var req struct {
		Kind *string `json:"kind"`
		Note *string `json:"note"`
		delayRequest
	}
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	if req.Kind != nil && *req.Kind != "marker" {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "kind", Message: `must be "marker": the only job kind the control plane schedules`})
	}
	d, err := req.parse()
	if err != nil {
		return nil, err
	}
	note := ""
	if req.Note != nil {
		note = *req.Note
	}
	if len(note) > 200 {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "note", Message: "must be at most 200 characters"})
	}
	j, err := cp.sb(r.Context()).ScheduleMarker(r.Context(), d, note)
	if err != nil {
		return nil, err
	}
	return newJobDTO(j), nil
}

func (cp *ControlPlane) handleJobList(r *http.Request) (any, error) {
	jobs, err := cp.sb(r.Context()).PendingJobs(r.Context(), 1000)
	if err != nil {
		return nil, err
	}
	out := make([]jobDTO, len(jobs))
	for i, j := range jobs {
		out[i] = newJobDTO(j)
	}
	b, err := cp.sb(r.Context()).JobBacklog(r.Context())
	if err != nil {
		return nil, err
	}
	backlog := backlogDTO{Due: b.Due, LagSeconds: b.Lag.Seconds(), WebhooksPending: b.WebhooksPending}
	if !b.OldestDue.IsZero() {
		t := wire.Time(b.OldestDue)
		backlog.OldestDue = &t
	}
	return map[string]any{"data": out, "backlog": backlog}, nil
}

// backlogDTO is how far the job runner is behind the simulation clock.
type backlogDTO struct {
	Due             int     `json:"due"`
	OldestDue       *string `json:"oldestDue"`
	LagSeconds      float64 `json:"lagSeconds"`
	WebhooksPending int     `json:"webhooksPending"`
}

func (cp *ControlPlane) handleJobGet(r *http.Request) (any, error) {
	j, err := cp.sb(r.Context()).Job(r.Context(), mux.Vars(r)["id"])
	if err != nil {
		return nil, err
	}
	return newJobDTO(j), nil
}
