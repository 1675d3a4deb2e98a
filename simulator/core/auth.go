package core

import (
	"context"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
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

// SandboxToken issues an access token for an account without its credentials
// or certificate: the control plane's shortcut for consoles and scripts. The
// token is the same as POST /api/auth/token issues (its clientId claim is the
// account's first client id).
func (s *Simulator) SandboxToken(ctx context.Context, id pix.AccountID) (pix.Token, error) {
	now := s.clock.Now()
	var clientID string
	err := s.store.View(ctx, func(tx storage.Tx) error {
		if _, err := tx.Account(id); err != nil {
			return refs.NotFound(err, "account %d not found", id)
		}
		creds, err := tx.Credentials()
		if err != nil {
			return err
		}
		for _, c := range creds {
			if c.AccountID == id && (clientID == "" || c.ClientID < clientID) {
				clientID = c.ClientID
			}
		}
		return nil
	})
	if err != nil {
		return pix.Token{}, err
	}
	return s.auth.Sign(id, clientID, now)
}
