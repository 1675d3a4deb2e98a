package sandbox

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// Control-plane routes of webhook registration: the switch of the public
// registration routes (GET and PUT /_sandbox/webhook-registration) and the
// list of an account's webhook targets (GET /_sandbox/webhook-targets).

// Modes of the public webhook registration routes (POST and GET /api/webhooks).
const (
	// WebhookRegistrationDisabled makes the routes answer as the specification
	// says they currently do: POST 200 with success false, GET 200 with an empty
	// list. It is the sandbox's default.
	WebhookRegistrationDisabled = "disabled"
	// WebhookRegistrationEnabled makes the routes act with their intended shape.
	WebhookRegistrationEnabled = "enabled"
)

// registrationMode is the body of GET and PUT /_sandbox/webhook-registration.
type registrationMode struct {
	Mode string `json:"mode"`
}

// WebhookRegistration reads the mode of the public webhook registration
// routes (GET /_sandbox/webhook-registration): WebhookRegistrationEnabled or
// WebhookRegistrationDisabled.
func (s *Client) WebhookRegistration(ctx context.Context) (string, error) {
	var m registrationMode
	err := s.call(ctx, http.MethodGet, "/_sandbox/webhook-registration", nil, http.StatusOK, &m)
	return m.Mode, err
}

// SetWebhookRegistration switches the public webhook registration routes to
// mode, WebhookRegistrationEnabled or WebhookRegistrationDisabled
// (PUT /_sandbox/webhook-registration {"mode":mode}), and returns the mode the
// control plane reports afterwards. The switch is global to the sandbox, so a
// spec that enables registration must be ginkgo.Serial and switch it back.
func (s *Client) SetWebhookRegistration(ctx context.Context, mode string) (string, error) {
	if mode != WebhookRegistrationEnabled && mode != WebhookRegistrationDisabled {
		return "", fmt.Errorf("SetWebhookRegistration: mode %q: want %q or %q", mode, WebhookRegistrationEnabled, WebhookRegistrationDisabled)
	}
	var m registrationMode
	err := s.call(ctx, http.MethodPut, "/_sandbox/webhook-registration", registrationMode{Mode: mode}, http.StatusOK, &m)
	return m.Mode, err
}

// WebhookTargets lists an account's webhook targets, those registered through
// the control plane and through POST /api/webhooks alike
// (GET /_sandbox/webhook-targets?accountId=).
func (s *Client) WebhookTargets(ctx context.Context, accountID string) ([]WebhookTarget, error) {
	if _, err := strconv.ParseInt(accountID, 10, 64); err != nil {
		return nil, fmt.Errorf("WebhookTargets: account id %q is not a number", accountID)
	}
	var out struct {
		Data []WebhookTarget `json:"data"`
	}
	path := "/_sandbox/webhook-targets?" + url.Values{"accountId": {accountID}}.Encode()
	if err := s.call(ctx, http.MethodGet, path, nil, http.StatusOK, &out); err != nil {
		return nil, err
	}
	return out.Data, nil
}
