package sandboxapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/httpapi"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/receivercheck"
)

// receiverCheckRequest is the body of POST /_sandbox/check-receiver: the
// configuration of pixsandbox check-receiver, field for flag. Durations are
// Go duration text ("5s", "1500ms").
type receiverCheckRequest struct {
	URL         *string     `json:"url"`
	CallbackURL *string     `json:"callbackUrl"`
	Secret      *string     `json:"secret"`
	Headers     []headerDTO `json:"headers"`
	Timeout     *string     `json:"timeout"`
	Slow        *string     `json:"slow"`
	Cases       []string    `json:"cases"`
}

// decodeReceiverCheck reads the body into a check configuration. Type and
// syntax problems name their field here; the rules of each field (URL scheme
// and length, headers, secret, bounds, case names) are the core's, which
// names the field too. DenyPrivate is never taken from the request: the core
// applies the server's --webhook-deny-private.
func decodeReceiverCheck(r *http.Request) (receivercheck.Config, error) {
	var req receiverCheckRequest
	if err := httpapi.DecodeSandboxJSON(r, &req); err != nil {
		return receivercheck.Config{}, err
	}
	var vs []pix.Violation
	var cfg receivercheck.Config
	if req.URL == nil {
		vs = append(vs, pix.Violation{Field: "url", Message: "is required: the partner's webhook receiver, e.g. https://partner.example/webhooks"})
	} else {
		cfg.URL = *req.URL
	}
	cfg.CallbackURL, cfg.Secret = text(req.CallbackURL), text(req.Secret)
	for _, h := range req.Headers {
		cfg.Headers = append(cfg.Headers, receivercheck.Header{Key: h.Key, Value: h.Value})
	}
	duration := func(field string, p *string) time.Duration {
		if p == nil {
			return 0
		}
		d, err := time.ParseDuration(strings.TrimSpace(*p))
		if err != nil {
			vs = append(vs, pix.Violation{Field: field, Message: `must be a duration such as "5s" or "1500ms"`})
		}
		return d
	}
	cfg.Timeout = duration("timeout", req.Timeout)
	cfg.Slow = duration("slow", req.Slow)
	cfg.Cases = req.Cases
	if len(vs) > 0 {
		return receivercheck.Config{}, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	return cfg, nil
}

// handleCheckReceiver runs the receiver check and answers its report.
// A receiver that fails is a 200 with FAIL cases; only a bad request is an
// error.
func (cp *ControlPlane) handleCheckReceiver(r *http.Request) (any, error) {
	cfg, err := decodeReceiverCheck(r)
	if err != nil {
		return nil, err
	}
	rep, err := cp.sb(r.Context()).CheckReceiver(r.Context(), cfg)
	if err != nil {
		return nil, err
	}
	return rep, nil
}
