package core

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// CreateRefund refunds a received PIX, through either route: one model, one sum
// rule and one hold (spec "PUT /pix/{e2eid}/devolucao/{id}" and "POST
// /api/pix/refund-in/{id}"). The same id again returns the same refund
// (replayed); with another amount it is CodeRefundIDConflict.
//
// Returns CodeInvalidRequest (KindInvalid) for an id that is not 1 to 35
// characters of [a-zA-Z0-9]; KindNotFound: CodeNotFound (no such original) or
// CodeRefundNotAReceipt; CodeRefundDeadlineExpired (more than 89 days,
// KindUnprocessable); CodeRefundExceedsBalance (the sum rule). A refund the
// account cannot cover is created NAO_REALIZADO at once (Gap G-44), not
// refused (simulator/refund).
func (s *Simulator) CreateRefund(ctx context.Context, id pix.AccountID, orig pix.RefundOriginal, req pix.RefundRequest, sc scenarios.Scenario) (r pix.Refund, replayed bool, err error) {
	now := s.clock.Now()
	if req.ID == "" {
		req.ID = strings.ReplaceAll(uuid.NewString(), "-", "")
	}
	if !pix.ValidRefundID(req.ID) {
		return pix.Refund{}, false, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "id", Message: "must be 1 to 35 characters of [a-zA-Z0-9]"})
	}
	err = s.store.Update(ctx, func(tx storage.Tx) (err error) {
		r, replayed, err = s.refunds.Create(tx, id, orig, req, sc, now)
		return err
	})
	if err != nil {
		return pix.Refund{}, false, err
	}
	s.agenda.Wake()
	return r, replayed, nil
}

// RefundOf returns a refund by the original's end-to-end id and the refund id
// (GET /pix/{e2eid}/devolucao/{id}).
func (s *Simulator) RefundOf(ctx context.Context, id pix.AccountID, e2e, rid string) (pix.Refund, error) {
	var r pix.Refund
	err := s.store.View(ctx, func(tx storage.Tx) error {
		o, err := tx.TransactionByE2E(id, e2e)
		if err != nil {
			return refs.NotFound(err, "original transaction not found: no PIX of this account has endToEndId %s", e2e)
		}
		r, err = tx.Refund(o.ID, rid)
		return refs.NotFound(err, "refund %s of %s not found", refs.Quote(rid), e2e)
	})
	return r, err
}
