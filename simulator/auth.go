package simulator

import (
	"context"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// IssueToken checks a token request and issues an access token (POST
// /api/auth/token; simulator/auth has the checks and their order).
func (s *Simulator) IssueToken(ctx context.Context, req pix.TokenRequest, sc scenarios.Scenario) (pix.Token, error) {
	return s.auth.IssueToken(ctx, req, sc)
}

// Authenticate verifies a bearer token and returns its account
// (KindUnauthorized otherwise; simulator/auth).
func (s *Simulator) Authenticate(ctx context.Context, token string) (pix.AccountID, error) {
	return s.auth.Authenticate(ctx, token)
}
