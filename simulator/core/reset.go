package core

import (
	"context"
	"fmt"

	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// Reset drops every record and seeds the fixture accounts and the DICT
// directory again, as on the first start of a new data directory (Gap G-58).
//
// Kept: the clock, which never moves back (a virtual clock stays where it is;
// set it forward if needed), the token signing key (so tokens of the fixture
// accounts, which get their ids again, stay valid; tokens of accounts created
// since are refused, their account no longer exists), the start counter (so
// end-to-end ids drawn after the reset never repeat earlier ones) and the
// configuration (settlement delay, MED deadlines, webhook registration).
// Scheduled jobs, pending webhooks, rate-limit windows and remembered tokens
// are gone. The job runner is stopped during the reset and clock moves wait
// for it; the HTTP server keeps requests out meanwhile (httpapi resetMu).
func (s *Simulator) Reset(ctx context.Context) error {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	if s.runCtx != nil {
		s.agenda.Stop()
		defer s.agenda.Start(s.runCtx)
	}
	s.pool.Stop() // attempts under way belong to records about to be dropped
	s.clockMu.Lock()
	defer s.clockMu.Unlock()

	var starts uint64
	if err := s.store.View(ctx, func(tx storage.Tx) error {
		_, err := tx.Meta(metaStarts, &starts)
		return err
	}); err != nil {
		return err
	}
	if err := s.store.Reset(ctx); err != nil {
		return err
	}
	s.auth.Forget()
	s.rateLimits.Reset()
	if err := s.store.Update(ctx, func(tx storage.Tx) error {
		if err := tx.PutMeta(metaStarts, starts); err != nil {
			return err
		}
		return s.auth.KeepSigningKey(tx)
	}); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	if err := s.saveClock(ctx, s.clock.Now()); err != nil {
		return fmt.Errorf("reset: save the clock: %w", err)
	}
	if err := s.seedStore(ctx); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	s.log.Info("sandbox reset: every record dropped, fixtures seeded again")
	return nil
}
