package sandboxclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// Rotation is the body of the rotate-secret routes of webhook targets and
// listeners; its zero value asks for the server's defaults (a fresh secret,
// a 24 h overlap).
type Rotation struct {
	// Overlap is how long the old secret signs too, a Go duration ("24h",
	// "0s"); "" for the server's default.
	Overlap string `json:"overlap,omitempty"`
	// Secret is the new secret (whsec_…); "" for a fresh one.
	Secret string `json:"secret,omitempty"`
}

// RotatedTarget is a webhook target after a rotation: the answer of POST
// /_sandbox/webhook-targets/{id}/rotate-secret.
type RotatedTarget struct {
	ID        int64  `json:"id"`
	AccountID int64  `json:"accountId"`
	URL       string `json:"url"`
	EventType string `json:"eventType"`
	Secret    string `json:"secret"`
	// PreviousSecretExpiresAt is when the old secret stops signing (wall
	// time); "" when it stopped at once.
	PreviousSecretExpiresAt string `json:"previousSecretExpiresAt"`
}

// RotateTargetSecret gives a webhook target a new signing secret (POST
// /_sandbox/webhook-targets/{id}/rotate-secret).
func (c *Client) RotateTargetSecret(ctx context.Context, id int64, rot Rotation) (RotatedTarget, *Response, error) {
	var out RotatedTarget
	r, err := c.CallJSON(ctx, http.MethodPost, fmt.Sprintf("/_sandbox/webhook-targets/%d/rotate-secret", id), rot, nil, &out, http.StatusOK)
	return out, r, err
}

// RotateListenerSecret gives every target of a listener a new signing secret
// (POST /_sandbox/listeners/{id}/rotate-secret).
func (c *Client) RotateListenerSecret(ctx context.Context, id string, rot Rotation) (Listener, *Response, error) {
	var out Listener
	r, err := c.CallJSON(ctx, http.MethodPost, "/_sandbox/listeners/"+url.PathEscape(id)+"/rotate-secret", rot, nil, &out, http.StatusOK)
	return out, r, err
}
