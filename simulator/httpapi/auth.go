package httpapi

import (
	"net/http"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// tokenRequest is the body of POST /api/auth/token. Pointers tell a missing field
// from an empty one.
type tokenRequest struct {
	ClientID     *string `json:"clientId"`
	ClientSecret *string `json:"clientSecret"`
}

// TokenResponse is the body of an issued token (POST /api/auth/token, and the
// control plane's POST /_sandbox/accounts/{id}/token).
type TokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
}

// handleAuthToken handles "POST /api/auth/token". It only collects: the header,
// the body's problems and fields go to IssueToken, which checks them in the
// documented order (simulator/core/auth.go, Gap G-01).
func (s *Server) handleAuthToken(r *http.Request) (any, error) {
	sc, err := scenarios.FromHeader(r.Header.Get(scenarios.Header), scenarios.OpAuthToken)
	if err != nil {
		return nil, err
	}
	in := pix.TokenRequest{}
	values := r.Header.Values("X-SSL-Client-Cert")
	if len(values) > 0 {
		in.HasCertHeader, in.CertHeader = true, values[0]
	}
	var body tokenRequest
	if err := decodeJSON(r, &body, pix.CodePubRequestBodyInvalid); err != nil {
		e := asError(err)
		if e.Kind != pix.KindInvalid {
			return nil, err // 413: nothing else can be judged
		}
		in.BodyViolations = e.Violations
	}
	if body.ClientID != nil {
		in.ClientID = *body.ClientID
	}
	if body.ClientSecret != nil {
		in.ClientSecret = *body.ClientSecret
	}
	svc, err := s.tokenServices(r, in.ClientID)
	if err != nil {
		return nil, err
	}
	tok, err := svc.IssueToken(r.Context(), in, sc)
	if err != nil {
		return nil, err
	}
	return NewTokenResponse(tok), nil
}

// NewTokenResponse renders an issued token.
func NewTokenResponse(t pix.Token) TokenResponse {
	return TokenResponse{AccessToken: t.AccessToken, TokenType: t.TokenType, ExpiresIn: t.ExpiresIn}
}
