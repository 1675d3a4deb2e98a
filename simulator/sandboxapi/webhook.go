package sandboxapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

type headerDTO struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type targetDTO struct {
	ID        int64       `json:"id"`
	AccountID int64       `json:"accountId"`
	URL       string      `json:"url"`
	EventType string      `json:"eventType"`
	Headers   []headerDTO `json:"headers"`
	Signed    bool        `json:"signed"`
	IsActive  bool        `json:"isActive"`
	CreatedAt string      `json:"createdAt"`
	// PreviousSecretExpiresAt is the wall-clock end of the overlap of the
	// target's last rotation, while it keeps the secret that rotation
	// replaced (rotation.go).
	PreviousSecretExpiresAt string `json:"previousSecretExpiresAt,omitempty"`
}

func newTargetDTO(t webhook.Target) targetDTO {
	hs := make([]headerDTO, len(t.Headers))
	for i, h := range t.Headers {
		hs[i] = headerDTO{Key: h.Key, Value: h.Value}
	}
	return targetDTO{ID: t.ID, AccountID: t.AccountID, URL: t.URL, EventType: t.EventType, Headers: hs,
		Signed: t.Secret != "", IsActive: t.Active, CreatedAt: wire.Time(t.CreatedAt), PreviousSecretExpiresAt: previousSecretExpiresAt(t)}
}

// handleTargetCreate registers a webhook target in the intended shape of
// spec "POST /api/webhooks" plus the account and an optional signing secret.
func (cp *ControlPlane) handleTargetCreate(r *http.Request) (any, error) {
	var req struct {
		AccountID *int64      `json:"accountId"`
		URL       *string     `json:"url"`
		EventType *string     `json:"eventType"`
		Headers   []headerDTO `json:"headers"`
		Secret    *string     `json:"secret"`
	}
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return nil, err
	}
	if req.AccountID == nil {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "accountId", Message: "is required"})
	}
	t := webhook.Target{AccountID: *req.AccountID, Active: true, URL: text(req.URL), EventType: text(req.EventType), Secret: text(req.Secret)}
	for _, h := range req.Headers {
		t.Headers = append(t.Headers, webhook.Header{Key: h.Key, Value: h.Value})
	}
	out, _, err := cp.sb(r.Context()).RegisterWebhookTarget(r.Context(), t, false)
	if err != nil {
		return nil, err
	}
	return newTargetDTO(out), nil
}

func (cp *ControlPlane) handleTargetList(r *http.Request) (any, error) {
	id, err := accountIDQuery(r, true)
	if err != nil {
		return nil, err
	}
	ts, err := cp.sb(r.Context()).WebhookTargets(r.Context(), id)
	if err != nil {
		return nil, err
	}
	out := make([]targetDTO, len(ts))
	for i, t := range ts {
		out[i] = newTargetDTO(t)
	}
	return map[string]any{"data": out}, nil
}

func (cp *ControlPlane) handleTargetDelete(r *http.Request) (any, error) {
	n, err := strconv.ParseInt(mux.Vars(r)["id"], 10, 64)
	if err != nil || n <= 0 {
		return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "id", Message: "must be a positive number"})
	}
	if err := cp.sb(r.Context()).DeleteWebhookTarget(r.Context(), n); err != nil {
		return nil, err
	}
	return map[string]any{"deleted": n}, nil
}

type attemptDTO struct {
	WebhookLogID    int64       `json:"webhookLogId"`
	Number          int         `json:"number"`
	SentAt          string      `json:"sentAt"`
	URL             string      `json:"url"`
	RequestHeaders  []headerDTO `json:"requestHeaders"`
	RequestBody     string      `json:"requestBody"`
	StatusCode      int         `json:"statusCode"`
	ResponseExcerpt string      `json:"responseExcerpt"`
	Error           string      `json:"error,omitempty"`
	DurationMs      float64     `json:"durationMs"`
}

type deliveryDTO struct {
	ID            string       `json:"id"`
	EventID       string       `json:"eventId"`
	EventType     string       `json:"eventType"`
	AccountID     int64        `json:"accountId"`
	TransactionID int64        `json:"transactionId"`
	TargetID      int64        `json:"targetId"`
	URL           string       `json:"url"`
	Status        string       `json:"status"`
	NextAttemptAt string       `json:"nextAttemptAt,omitempty"`
	CreatedAt     string       `json:"createdAt"`
	Attempts      []attemptDTO `json:"attempts"`
}

func (cp *ControlPlane) handleDeliveries(r *http.Request) (any, error) {
	acct, err := accountIDQuery(r, false)
	if err != nil {
		return nil, err
	}
	var txID int64
	if v := r.URL.Query().Get("transactionId"); v != "" {
		if txID, err = strconv.ParseInt(v, 10, 64); err != nil || txID <= 0 {
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "transactionId", Message: "must be a positive number"})
		}
	}
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > 1000 {
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "limit", Message: "must be 1 to 1000"})
		}
	}
	var ds []webhook.Delivery
	if v := r.URL.Query().Get("afterAttempt"); v != "" {
		after, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil || after < 0:
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "afterAttempt", Message: "must be a webhookLogId: a number, 0 or more"})
		case txID != 0:
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "afterAttempt", Message: "cannot be combined with transactionId"})
		}
		ds, err = cp.sb(r.Context()).WebhookDeliveriesAfterAttempt(r.Context(), acct, after, limit)
		if err != nil {
			return nil, err
		}
	} else if ds, err = cp.sb(r.Context()).WebhookDeliveries(r.Context(), acct, txID, limit); err != nil {
		return nil, err
	}
	out := make([]deliveryDTO, len(ds))
	for i, d := range ds {
		dto := deliveryDTO{ID: d.ID, EventID: d.EventID, EventType: d.EventType, AccountID: d.AccountID, TransactionID: d.TransactionID,
			TargetID: d.TargetID, URL: d.URL, Status: string(d.Status), CreatedAt: wire.Time(d.CreatedAt), Attempts: []attemptDTO{}}
		if d.Status == webhook.StatusRetrying {
			dto.NextAttemptAt = wire.Time(d.NextAttemptAt)
		}
		for _, a := range d.Attempts {
			hs := make([]headerDTO, len(a.RequestHeaders))
			for j, h := range a.RequestHeaders {
				hs[j] = headerDTO{Key: h.Key, Value: h.Value}
				if strings.EqualFold(h.Key, "webhook-signature") {
					hs[j].Value = h.Value // signatures are not secrets
				}
			}
			dto.Attempts = append(dto.Attempts, attemptDTO{WebhookLogID: a.ID, Number: a.Number, SentAt: wire.Time(a.SentAt), URL: a.URL,
				RequestHeaders: hs, RequestBody: a.RequestBody, StatusCode: a.StatusCode, ResponseExcerpt: a.ResponseExcerpt,
				Error: a.Error, DurationMs: float64(a.Duration.Microseconds()) / 1000})
		}
		out[i] = dto
	}
	return map[string]any{"data": out}, nil
}

// handleRegistration answers GET and PUT /_sandbox/webhook-registration: it
// switches the public registration routes (POST/GET /api/webhooks).
func (cp *ControlPlane) handleRegistration(r *http.Request) (any, error) {
	if r.Method == http.MethodPut {
		var req struct {
			Mode *string `json:"mode"`
		}
		if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
			return nil, err
		}
		if req.Mode == nil || (*req.Mode != "enabled" && *req.Mode != "disabled") {
			return nil, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "mode", Message: `must be "enabled" or "disabled"`})
		}
		cp.sb(r.Context()).SetWebhookRegistration(*req.Mode == "enabled")
	}
	mode := "disabled"
	if cp.sb(r.Context()).WebhookRegistration() {
		mode = "enabled"
	}
	return map[string]string{"mode": mode}, nil
}
