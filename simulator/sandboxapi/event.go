package sandboxapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/events"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// eventDTO is an event of the catalogue (GET /_sandbox/events).
type eventDTO struct {
	Name       string   `json:"name"`
	EventType  string   `json:"eventType"`
	Payloads   []string `json:"payloads"`
	Status     string   `json:"status"`
	Summary    string   `json:"summary"`
	World      string   `json:"world"`
	Parameters []string `json:"parameters"`
	MovesClock bool     `json:"movesClock"`
}

// handleEventList lists every event the sandbox produces on request.
func (cp *ControlPlane) handleEventList(*http.Request) (any, error) {
	all := events.All()
	out := make([]eventDTO, len(all))
	for i, e := range all {
		out[i] = eventDTO{Name: e.Name, EventType: e.EventType, Payloads: e.Kinds, Status: e.Status, Summary: e.Summary, World: e.World,
			Parameters: append([]string{"accountId"}, e.Uses...), MovesClock: e.MovesClock}
	}
	return map[string]any{"data": out}, nil
}

// eventDeliveryDTO is a delivery a triggered event planned.
type eventDeliveryDTO struct {
	ID        string `json:"id"`
	EventID   string `json:"eventId"`
	TargetID  int64  `json:"targetId"`
	URL       string `json:"url"`
	Status    string `json:"status"`
	CreatedAt string `json:"createdAt"`
}

// eventResultDTO is what a triggered event did (POST /_sandbox/events/{event}).
type eventResultDTO struct {
	Event         string             `json:"event"`
	EventType     string             `json:"eventType"`
	AccountID     int64              `json:"accountId"`
	TransactionID int64              `json:"transactionId"`
	MEDID         int64              `json:"medId,omitempty"`
	ClockMovedS   int64              `json:"clockMovedSeconds"`
	Steps         []string           `json:"steps"`
	Deliveries    []eventDeliveryDTO `json:"deliveries"`
}

// handleEventTrigger runs an event's recipe. The body is optional.
func (cp *ControlPlane) handleEventTrigger(r *http.Request) (any, error) {
	var req struct {
		AccountID *int64             `json:"accountId"`
		Amount    *strictjson.Number `json:"amount"`
		Key       *string            `json:"key"`
		ErrorCode *string            `json:"errorCode"`
	}
	if r.ContentLength != 0 {
		if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
			return nil, err
		}
	}
	var p events.Params
	var vs []pix.Violation
	if req.AccountID != nil {
		if *req.AccountID <= 0 {
			vs = append(vs, pix.Violation{Field: "accountId", Message: "must be a positive account number"})
		}
		p.Account = pix.AccountID(*req.AccountID)
	}
	if req.Amount != nil {
		p.Amount = req.Amount.String()
	}
	if req.ErrorCode != nil {
		if *req.ErrorCode == "" {
			vs = append(vs, pix.Violation{Field: "errorCode", Message: "must not be empty: leave it out for ORDER_REJECTED"})
		}
		p.ErrorCode = pix.Code(*req.ErrorCode)
	}
	if len(vs) > 0 {
		return nil, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	p.Key = text(req.Key)
	res, err := events.Trigger(r.Context(), cp.sb(r.Context()), mux.Vars(r)["event"], p)
	if err != nil {
		return nil, err
	}
	out := eventResultDTO{Event: res.Event.Name, EventType: res.Event.EventType, AccountID: int64(res.Account), TransactionID: res.TransactionID,
		MEDID: res.MEDID, ClockMovedS: int64(res.ClockMoved.Seconds()), Steps: res.Steps, Deliveries: []eventDeliveryDTO{}}
	for _, d := range res.Deliveries {
		out.Deliveries = append(out.Deliveries, eventDeliveryDTO{ID: d.ID, EventID: d.EventID, TargetID: d.TargetID, URL: d.URL,
			Status: string(d.Status), CreatedAt: wire.Time(d.CreatedAt)})
	}
	return out, nil
}
