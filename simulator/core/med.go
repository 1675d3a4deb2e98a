package core

import (
	"context"

	"github.com/pixsandbox/pixsandbox/simulator/med"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/ratelimit"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// OpenMED opens a MED against a PIX the account received, as the payer's bank
// does through DICT (control plane; simulator/med has the timeline).
func (s *Simulator) OpenMED(ctx context.Context, in pix.MEDOpen) (pix.MED, error) {
	now := s.clock.Now()
	if err := med.Validate(in); err != nil {
		return pix.MED{}, err
	}
	var m pix.MED
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		var err error
		m, err = s.meds.Open(tx, in, now)
		return err
	})
	if err != nil {
		return pix.MED{}, err
	}
	s.agenda.Wake()
	return m, nil
}

// medStep runs one MED step in a store transaction, once: fn sees the MED only
// while it may still take that step.
func (s *Simulator) medStep(ctx context.Context, id int64, fn func(tx storage.Tx, m *pix.MED) error) (pix.MED, error) {
	var m pix.MED
	err := s.store.Update(ctx, func(tx storage.Tx) (err error) {
		if m, err = tx.MED(id); err != nil {
			return refs.NotFound(err, "MED %d not found", id)
		}
		if err := fn(tx, &m); err != nil {
			return err
		}
		return tx.PutMED(m)
	})
	if err == nil {
		s.agenda.Wake()
	}
	return m, err
}

// ReceiveMED acknowledges a MED (OPEN → RECEIVED, under analysis) and blocks
// the contested amount, bounded by what is available (control plane).
func (s *Simulator) ReceiveMED(ctx context.Context, id int64) (pix.MED, error) {
	return s.medStep(ctx, id, func(tx storage.Tx, m *pix.MED) error { return s.meds.Receive(tx, m, s.clock.Now()) })
}

// AnalyzeMED closes the analysis of a MED under analysis with APPROVED or
// REJECTED (control plane). An OPEN MED is received first.
func (s *Simulator) AnalyzeMED(ctx context.Context, id int64, result, details string) (pix.MED, error) {
	if result != pix.MEDResultApproved && result != pix.MEDResultRejected {
		return pix.MED{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "result", Message: "must be APPROVED or REJECTED"})
	}
	return s.medStep(ctx, id, func(tx storage.Tx, m *pix.MED) error {
		return s.meds.Analyze(tx, m, result, details, s.clock.Now())
	})
}

// CancelMED withdraws a MED not yet analysed and releases its block (control
// plane).
func (s *Simulator) CancelMED(ctx context.Context, id int64) (pix.MED, error) {
	return s.medStep(ctx, id, func(tx storage.Tx, m *pix.MED) error { return s.meds.Cancel(tx, m, s.clock.Now()) })
}

// RefundMED refunds the payer of an approved MED now (control plane; the refund
// job does it at its deadline).
func (s *Simulator) RefundMED(ctx context.Context, id int64) (pix.MED, error) {
	return s.medStep(ctx, id, func(tx storage.Tx, m *pix.MED) error { return s.meds.Refund(tx, m, s.clock.Now()) })
}

// ListMEDs returns a page of an account's MEDs (creation order) and the total
// matching. Above the account's rate (per minute of simulation time) it answers
// KindRateLimited (spec: 429).
func (s *Simulator) ListMEDs(ctx context.Context, id pix.AccountID, f pix.MEDFilter) ([]pix.MED, int, error) {
	now := s.clock.Now()
	var out []pix.MED
	total := 0
	skip := (f.Page - 1) * f.Size
	err := s.store.View(ctx, func(tx storage.Tx) error {
		a, err := tx.Account(id)
		if err != nil {
			return refs.NotFound(err, "account %d not found", id)
		}
		st, err := settingsOf(tx, a)
		if err != nil {
			return err
		}
		if ok, wait := s.rateLimits.Allow("med/"+itoa(int64(id)), st.EffectiveMEDRateLimit(), now); !ok {
			return ratelimit.Refusal("GET /api/med", st.EffectiveMEDRateLimit(), wait)
		}
		return tx.MEDs(id, func(m pix.MED) bool {
			if (f.Status != "" && m.Status != f.Status) || (f.IsReconciled != nil && m.IsReconciled != *f.IsReconciled) ||
				(!f.From.IsZero() && m.CreatedAt.Before(f.From)) || (!f.To.IsZero() && m.CreatedAt.After(f.To)) {
				return true
			}
			total++
			if total > skip && len(out) < f.Size {
				out = append(out, m)
			}
			return true
		})
	})
	return out, total, err
}

// GetMED returns a MED (control plane).
func (s *Simulator) GetMED(ctx context.Context, id int64) (pix.MED, error) {
	return view(ctx, s.store, func(tx storage.Tx) (pix.MED, error) {
		m, err := tx.MED(id)
		return m, refs.NotFound(err, "MED %d not found", id)
	})
}
