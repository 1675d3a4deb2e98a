package httpapi

import (
	"net/http"
	"sort"

	"github.com/gorilla/mux"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi/strictjson"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// disabledMessage is what the disabled registration route says (spec "POST
// /api/webhooks (currently disabled)").
const disabledMessage = "Webhook registration is currently disabled."

type registerResponse struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// webhookRegistration is spec "Resources > Webhook registration".
type webhookRegistration struct {
	ID        int64             `json:"id"`
	Type      string            `json:"type"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers"`
	IsActive  bool              `json:"isActive"`
	CreatedAt string            `json:"createdAt"`
}

type webhookList struct {
	AccountID int64                 `json:"accountId"`
	Webhooks  []webhookRegistration `json:"webhooks"`
	Total     int                   `json:"total"`
}

// handleWebhooksCreate handles "POST /api/webhooks". Disabled (the default, as
// the spec says the route currently is): 200 with success false and the
// message, nothing stored, the body not even read. Enabled
// (--webhook-registration=enabled): the intended shape — url HTTPS, eventType
// one of the seven, at most 5 headers without the blocked names, at most 3
// active URLs per type, re-registering a URL updates it (Gap G-56).
// headerDTO is one header of a webhook target.
type headerDTO struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// registerRequest is the body of POST /api/webhooks (intended shape).
type registerRequest struct {
	URL       *string     `json:"url"`
	EventType *string     `json:"eventType"`
	Headers   []headerDTO `json:"headers"`
}

// target checks the body, every field at once: required fields, then the
// rules of a webhook target (webhook.ValidateTarget, HTTPS only).
func (req registerRequest) target(account pix.AccountID) (webhook.Target, error) {
	var vs []pix.Violation
	if req.URL == nil {
		vs = append(vs, pix.Violation{Field: "url", Message: "is required"})
	}
	if req.EventType == nil {
		vs = append(vs, pix.Violation{Field: "eventType", Message: "is required"})
	}
	t := webhook.Target{AccountID: int64(account), Active: true}
	if req.URL != nil {
		t.URL = *req.URL
	}
	if req.EventType != nil {
		t.EventType = *req.EventType
	}
	for _, h := range req.Headers {
		t.Headers = append(t.Headers, webhook.Header{Key: h.Key, Value: h.Value})
	}
	if e, ok := webhook.ValidateTarget(t, true).(*pix.Error); ok && e != nil {
		for _, v := range e.Violations {
			if !strictjson.CoveredBy(vs, v.Field) {
				vs = append(vs, v)
			}
		}
	}
	if len(vs) > 0 {
		return webhook.Target{}, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	return t, nil
}

func (s *Server) handleWebhooksCreate(r *http.Request) (any, error) {
	if !s.svcOf(r).WebhookRegistration() {
		return registerResponse{Success: false, Message: disabledMessage}, nil
	}
	var req registerRequest
	if err := decodeValidated(r, &req, pix.CodeInvalidRequest, func() error { _, err := req.target(accountOf(r)); return err }); err != nil {
		return nil, err
	}
	t, err := req.target(accountOf(r))
	if err != nil {
		return nil, err
	}
	_, created, err := s.svcOf(r).RegisterWebhookTarget(r.Context(), t, true)
	if err != nil {
		return nil, err
	}
	msg := "Webhook updated."
	if created {
		msg = "Webhook registered."
	}
	return registerResponse{Success: true, Message: msg}, nil
}

// handleWebhooksList handles "GET /api/webhooks": disabled, an empty list even
// when targets exist (spec); enabled, the account's targets.
func (s *Server) handleWebhooksList(r *http.Request) (any, error) {
	id := accountOf(r)
	out := webhookList{AccountID: int64(id), Webhooks: []webhookRegistration{}}
	if !s.svcOf(r).WebhookRegistration() {
		return out, nil
	}
	targets, err := s.svcOf(r).WebhookTargets(r.Context(), id)
	if err != nil {
		return nil, err
	}
	for _, t := range targets {
		h := map[string]string{}
		for _, x := range t.Headers {
			h[x.Key] = x.Value
		}
		out.Webhooks = append(out.Webhooks, webhookRegistration{ID: t.ID, Type: t.EventType, URL: t.URL, Headers: h, IsActive: t.Active, CreatedAt: formatTime(t.CreatedAt)})
	}
	sort.SliceStable(out.Webhooks, func(i, j int) bool { return out.Webhooks[i].ID < out.Webhooks[j].ID })
	out.Total = len(out.Webhooks)
	return out, nil
}

type resendResponse struct {
	Message      string `json:"message"`
	WebhookLogID int64  `json:"webhookLogId"`
	SentAt       string `json:"sentAt"`
	StatusCode   int    `json:"statusCode"`
}

// handleWebhookResend handles "POST /api/resend-webhook/{transactionIdentifier}".
// The body is optional: {"url": …} resends to that URL once.
func (s *Server) handleWebhookResend(r *http.Request) (any, error) {
	var req struct {
		URL *string `json:"url"`
	}
	if r.ContentLength != 0 {
		if err := decodeJSON(r, &req, pix.CodeInvalidRequest); err != nil && !emptyBody(err) {
			return nil, err
		}
	}
	url := ""
	if req.URL != nil {
		url = *req.URL
	}
	a, err := s.svcOf(r).ResendWebhook(r.Context(), accountOf(r), mux.Vars(r)["transactionIdentifier"], url)
	if err != nil {
		return nil, err
	}
	msg := "Webhook resent."
	if a.Error != "" {
		msg = "Webhook resent; the target could not be reached: " + a.Error
	} else if !webhook.Success(a.StatusCode) {
		msg = "Webhook resent; the target answered " + itoa(int64(a.StatusCode)) + "."
	}
	return resendResponse{Message: msg, WebhookLogID: a.ID, SentAt: formatTime(a.SentAt), StatusCode: a.StatusCode}, nil
}

// emptyBody reports a decode error that only says the body is empty.
func emptyBody(err error) bool {
	e := asError(err)
	return len(e.Violations) == 1 && e.Violations[0].Field == "body" && e.Violations[0].Message == "is required: send a JSON object"
}
