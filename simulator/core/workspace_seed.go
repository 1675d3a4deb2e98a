package core

import (
	"context"
	"errors"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/clock"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// SeedCredential is a fixture account as seeded, with its credentials.
type SeedCredential struct {
	Account        pix.Account
	ClientID       string
	ClientSecret   string
	Balance        int64 // centavos
	CertificatePEM []byte
}

// SeedCredentials returns the client id and secret each fixture account of
// a new data directory (or workspace) is seeded with, by account id, and the
// PEM of its first certificate: what a workspace's creation answers once.
func (s *Simulator) SeedCredentials() []SeedCredential {
	out := make([]SeedCredential, 0, len(s.seedAccts))
	for _, a := range s.seedAccts {
		c := SeedCredential{Account: a.Account, ClientID: a.ClientID, ClientSecret: a.ClientSecret, Balance: int64(a.Balance)}
		if len(a.Certificates) > 0 {
			c.CertificatePEM = a.Certificates[0].PEM
		}
		out = append(out, c)
	}
	return out
}

// HasClient reports whether clientID is the client id of one of the
// simulator's accounts.
func (s *Simulator) HasClient(ctx context.Context, clientID string) (bool, error) {
	err := s.store.View(ctx, func(tx storage.Tx) error {
		_, err := tx.Credential(clientID)
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Release stops the simulator (Stop) and detaches it from its store, which
// outlives it (a workspace's store is the server's): nothing of it stays
// reachable from the store, so it is garbage once its holders drop it.
func (s *Simulator) Release() {
	s.Stop()
	if n, ok := s.store.(agenda.Notifier); ok {
		n.NotifyScheduled(nil)
	}
}

// Busy reports whether the simulator has work that needs it in memory: a
// webhook attempt under way, or, on a real clock, a pending job (it runs
// when it falls due). A virtual clock's jobs run only when the clock is
// moved, which loads the simulator again.
func (s *Simulator) Busy(ctx context.Context) bool {
	if s.pool.Pending() > 0 {
		return true
	}
	if s.clock.Mode() != clock.ModeReal {
		return false
	}
	_, pending, err := s.store.NextJob(ctx)
	return pending || err != nil
}
