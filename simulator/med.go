package simulator

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/delivery"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/ratelimit"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// MED job kinds.
const (
	jobMEDOpen        = "med.open"        // a charge scenario's MED opens
	jobMEDAcknowledge = "med.acknowledge" // OPEN → RECEIVED, block
	jobMEDAnalyze     = "med.analyze"     // RECEIVED → ANALYZED (or CANCELLED by scenario)
	jobMEDRefund      = "med.refund"      // APPROVED → the MED refund
)

func medJobID(kind string, id int64) string { return kind + "-" + itoa(id) }

// OpenMED opens a MED against a PIX the account received, as the payer's bank
// does through DICT. When the end-to-end id matches a received PIX of the account
// the MED is reconciled (originalTransactionId, a snapshot with a masked
// document) and its timeline moves money; otherwise it is recorded only.
func (s *Simulator) OpenMED(ctx context.Context, in pix.MEDOpen) (pix.MED, error) {
	now := s.clock.Now()
	var vs []pix.Violation
	if _, ok := pix.MEDCauses[in.Cause]; !ok {
		vs = append(vs, pix.Violation{Field: "cause", Message: "must be one of " + strings.Join(medCauseNames(), ", ")})
	}
	if !pix.ValidE2EPath(in.EndToEndID) {
		vs = append(vs, pix.Violation{Field: "endToEndId", Message: "must be 32 alphanumerics"})
	}
	if utf8.RuneCountInString(in.Description) > 500 {
		vs = append(vs, pix.Violation{Field: "description", Message: "must be at most 500 characters"})
	}
	if len(vs) > 0 {
		return pix.MED{}, pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	var m pix.MED
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		var err error
		m, err = s.newMED(tx, in, now)
		return err
	})
	if err != nil {
		return pix.MED{}, err
	}
	s.agenda.Wake()
	return m, nil
}

func medCauseNames() []string {
	out := make([]string, 0, len(pix.MEDCauses))
	for c := range pix.MEDCauses {
		out = append(out, c)
	}
	sortStrings(out)
	return out
}

func (s *Simulator) newMED(tx storage.Tx, in pix.MEDOpen, now time.Time) (pix.MED, error) {
	if _, err := tx.Account(in.AccountID); err != nil {
		return pix.MED{}, refs.NotFound(err, "account %d not found", in.AccountID)
	}
	id, err := tx.NextID("med")
	if err != nil {
		return pix.MED{}, err
	}
	m := pix.MED{ID: id, AccountID: in.AccountID, EndToEnd: in.EndToEndID, Status: pix.MEDStatusOpen, Reason: pix.MEDReasonRefundRequest,
		Cause: in.Cause, Description: in.Description, RequestingBank: in.RequestingBank,
		ContestedBank: pix.BankRef{ISPB: s.banks.sandbox.ISPB, Name: s.banks.sandbox.Name}, Scenario: in.Scenario, CreatedAt: now, UpdatedAt: now}
	o, err := tx.TransactionByE2E(in.AccountID, in.EndToEndID)
	received := err == nil && isReceipt(o)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return pix.MED{}, err
	}
	if received {
		m.IsReconciled, m.OriginalTransactionID, m.ContestedAmount = true, o.ID, o.Amount
		m.Original = &pix.MEDOriginal{Amount: o.Amount, Type: "PAYMENT", TransactionType: "PIX", Name: o.Counterpart.Name,
			Document: o.Counterpart.Document, DateTime: o.ProcessedAt}
		if m.RequestingBank.ISPB == "" {
			m.RequestingBank = pix.BankRef{ISPB: o.Counterpart.ISPB, Name: o.Counterpart.BankName}
		}
	}
	if in.Amount != "" {
		a, err := pix.ParseDecimal(in.Amount)
		if err != nil || a < 1 || (received && a > o.Amount) {
			return pix.MED{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "amount", Message: "must be at least 0.01, at most the original amount"})
		}
		m.ContestedAmount = a
	}
	if !received {
		var vs []pix.Violation
		if m.RequestingBank.ISPB == "" {
			vs = append(vs, pix.Violation{Field: "requestingBank.ispb", Message: "is required when the end-to-end id matches no received PIX of the account"})
		}
		if in.Amount == "" {
			vs = append(vs, pix.Violation{Field: "amount", Message: "is required when the end-to-end id matches no received PIX of the account"})
		}
		if len(vs) > 0 {
			return pix.MED{}, pix.Invalid(pix.CodeInvalidRequest, vs...)
		}
	}
	b, known := s.banks.byISPB[m.RequestingBank.ISPB]
	if !known || m.RequestingBank.ISPB == s.banks.sandbox.ISPB {
		return pix.MED{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "requestingBank.ispb", Message: "must be a participant outside the sandbox (GET /_sandbox/banks)"})
	}
	if m.RequestingBank.Name == "" {
		m.RequestingBank.Name = b.Name
	}
	if err := tx.PutMED(m); err != nil {
		return pix.MED{}, err
	}
	tl := s.medTimeline(m)
	for kind, due := range map[string]time.Time{jobMEDAcknowledge: now.Add(tl.Acknowledge), jobMEDAnalyze: now.Add(tl.Analysis)} {
		if err := tx.PutJob(agenda.Job{ID: medJobID(kind, m.ID), Kind: kind, Due: due, Payload: []byte(itoa(m.ID))}); err != nil {
			return pix.MED{}, err
		}
	}
	return m, delivery.Emit(tx, m.AccountID, webhook.EventMedCreated, "MED", m.OriginalTransactionID, webhook.MEDPayload("med_created", m), now)
}

// medTimeline is the MED's deadlines: the configured ones, the analysis
// replaced by a scenario's.
func (s *Simulator) medTimeline(m pix.MED) pix.MEDTimeline {
	tl := s.medDeadlines
	if sc, ok := scenarios.Lookup(m.Scenario); ok && sc.AnalysisAfter > 0 {
		tl.Analysis = sc.AnalysisAfter
	}
	if tl.Acknowledge > tl.Analysis {
		tl.Acknowledge = tl.Analysis
	}
	return tl
}

// openMEDForCharge schedules the MED of a charge scenario once the charge is paid.
func (s *Simulator) openMEDForCharge(tx storage.Tx, scenario string, paid pix.Transaction, now time.Time) error {
	sc, ok := scenarios.Lookup(scenario)
	if !ok || sc.Phase != scenarios.MED {
		return nil
	}
	payload, err := json.Marshal(pix.MEDOpen{AccountID: paid.AccountID, EndToEndID: paid.EndToEndID, Cause: "UNAUTHORIZED_TRANSACTION",
		Description: "Opened by scenario " + sc.Name, Scenario: sc.Name})
	if err != nil {
		return err
	}
	return tx.PutJob(agenda.Job{ID: "medopen-" + itoa(paid.ID), Kind: jobMEDOpen, Due: now.Add(sc.Delay), Payload: payload})
}

func (s *Simulator) medOpenJob(ctx context.Context, now time.Time, j agenda.Job) error {
	var in pix.MEDOpen
	if err := json.Unmarshal(j.Payload, &in); err != nil {
		return nil
	}
	return s.store.Update(ctx, func(tx storage.Tx) error {
		_, err := s.newMED(tx, in, now)
		return err
	})
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

func medConflict(m pix.MED, step string) error {
	return pix.Errorf(pix.KindConflict, pix.CodeInvalidRequest, "MED %d is %s and cannot be %s", m.ID, m.Status, step)
}

// ReceiveMED acknowledges a MED (OPEN → RECEIVED, under analysis) and blocks
// the contested amount, bounded by what is available (Gap G-50).
func (s *Simulator) ReceiveMED(ctx context.Context, id int64) (pix.MED, error) {
	return s.medStep(ctx, id, func(tx storage.Tx, m *pix.MED) error {
		if !m.Status.CanBecome(pix.MEDStatusReceived) {
			return medConflict(*m, "received")
		}
		return s.receiveMED(tx, m, s.clock.Now())
	})
}

func (s *Simulator) receiveMED(tx storage.Tx, m *pix.MED, now time.Time) error {
	m.Status, m.UpdatedAt = pix.MEDStatusReceived, now
	if err := tx.DeleteJob(medJobID(jobMEDAcknowledge, m.ID)); err != nil {
		return err
	}
	if !m.IsReconciled {
		return nil
	}
	bal, err := tx.Balance(m.AccountID)
	if err != nil {
		return err
	}
	m.BlockedAmount = min(m.ContestedAmount, bal.Available)
	if m.BlockedAmount > 0 {
		_, err = tx.Move(ledger.Entry{At: now, From: ledger.AvailableOf(m.AccountID), To: ledger.BlockedOf(m.AccountID), Amount: m.BlockedAmount, Ref: refs.MEDRef(m.ID, "block")})
	}
	return err
}

// AnalyzeMED closes the analysis of a MED under analysis with APPROVED or
// REJECTED (control plane). An OPEN MED is received first.
func (s *Simulator) AnalyzeMED(ctx context.Context, id int64, result, details string) (pix.MED, error) {
	if result != pix.MEDResultApproved && result != pix.MEDResultRejected {
		return pix.MED{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "result", Message: "must be APPROVED or REJECTED"})
	}
	return s.medStep(ctx, id, func(tx storage.Tx, m *pix.MED) error {
		now := s.clock.Now()
		if m.Status == pix.MEDStatusOpen {
			if err := s.receiveMED(tx, m, now); err != nil {
				return err
			}
		}
		if !m.Status.CanBecome(pix.MEDStatusAnalyzed) {
			return medConflict(*m, "analyzed")
		}
		return s.analyzeMED(tx, m, result, details, now)
	})
}

func (s *Simulator) analyzeMED(tx storage.Tx, m *pix.MED, result, details string, now time.Time) error {
	m.Status, m.AnalysisResult, m.AnalysisDetails, m.UpdatedAt = pix.MEDStatusAnalyzed, result, details, now
	if err := tx.DeleteJob(medJobID(jobMEDAnalyze, m.ID)); err != nil {
		return err
	}
	if result == pix.MEDResultRejected {
		if err := s.releaseMEDBlock(tx, m, now); err != nil {
			return err
		}
		return delivery.Emit(tx, m.AccountID, webhook.EventMedRejected, "MED", m.OriginalTransactionID, webhook.MEDPayload("med_rejected", *m), now)
	}
	if err := tx.PutJob(agenda.Job{ID: medJobID(jobMEDRefund, m.ID), Kind: jobMEDRefund, Due: now.Add(s.medDeadlines.Refund), Payload: []byte(itoa(m.ID))}); err != nil {
		return err
	}
	return delivery.Emit(tx, m.AccountID, webhook.EventMedAccepted, "MED", m.OriginalTransactionID, webhook.MEDPayload("med_accepted", *m), now)
}

// CancelMED withdraws a MED not yet analysed (reason REFUND_CANCELLATION) and
// releases its block (control plane). No webhook type exists for it (Gap G-46).
func (s *Simulator) CancelMED(ctx context.Context, id int64) (pix.MED, error) {
	return s.medStep(ctx, id, func(tx storage.Tx, m *pix.MED) error {
		if !m.Status.CanBecome(pix.MEDStatusCancelled) {
			return medConflict(*m, "cancelled")
		}
		return s.cancelMED(tx, m, s.clock.Now())
	})
}

func (s *Simulator) cancelMED(tx storage.Tx, m *pix.MED, now time.Time) error {
	m.Status, m.Reason, m.UpdatedAt = pix.MEDStatusCancelled, pix.MEDReasonRefundCancellation, now
	for _, kind := range []string{jobMEDAcknowledge, jobMEDAnalyze} {
		if err := tx.DeleteJob(medJobID(kind, m.ID)); err != nil {
			return err
		}
	}
	return s.releaseMEDBlock(tx, m, now)
}

func (s *Simulator) releaseMEDBlock(tx storage.Tx, m *pix.MED, now time.Time) error {
	if m.BlockedAmount == 0 {
		return nil
	}
	_, err := tx.Move(ledger.Entry{At: now, From: ledger.BlockedOf(m.AccountID), To: ledger.AvailableOf(m.AccountID), Amount: m.BlockedAmount, Ref: refs.MEDRef(m.ID, "release")})
	m.BlockedAmount = 0
	return err
}

// RefundMED refunds the payer of an approved MED now (control plane; the refund
// job does it at its deadline).
func (s *Simulator) RefundMED(ctx context.Context, id int64) (pix.MED, error) {
	return s.medStep(ctx, id, func(tx storage.Tx, m *pix.MED) error {
		if m.Status != pix.MEDStatusAnalyzed || m.AnalysisResult != pix.MEDResultApproved || m.RefundID != "" {
			return medConflict(*m, "refunded")
		}
		if !m.IsReconciled {
			return pix.Errorf(pix.KindConflict, pix.CodeInvalidRequest, "MED %d matches no received PIX of the account: there is nothing to refund", m.ID)
		}
		return s.refundMED(tx, m, s.clock.Now())
	})
}

// refundMED creates the MED's refund (natureza MED_FRAUDE, or MED_OPERACIONAL
// for an operational flaw) of the contested amount, at most what is left to
// refund and what can be recovered (the block plus what is available), out of
// the MED's block first; whatever the block holds beyond it is released. It is visible through both refund routes and the listings; clients
// cannot create one.
func (s *Simulator) refundMED(tx storage.Tx, m *pix.MED, now time.Time) error {
	if err := tx.DeleteJob(medJobID(jobMEDRefund, m.ID)); err != nil {
		return err
	}
	m.UpdatedAt = now
	if !m.IsReconciled {
		return nil // nothing local to refund
	}
	o, err := tx.Transaction(m.OriginalTransactionID)
	if err != nil {
		return err
	}
	refunded, err := tx.Counter(refs.RefundedCounter(o.ID))
	if err != nil {
		return err
	}
	bal, err := tx.Balance(m.AccountID)
	if err != nil {
		return err
	}
	// What can be recovered: the block plus whatever is available by now (a
	// partial return when the money was spent; Gap G-50).
	amount := min(m.ContestedAmount, o.Amount-refunded, m.BlockedAmount+bal.Available)
	blocked := m.BlockedAmount
	m.BlockedAmount = 0
	if amount <= 0 {
		m.BlockedAmount = blocked
		return s.releaseMEDBlock(tx, m, now)
	}
	if blocked > amount {
		if _, err := tx.Move(ledger.Entry{At: now, From: ledger.BlockedOf(m.AccountID), To: ledger.AvailableOf(m.AccountID), Amount: blocked - amount, Ref: refs.MEDRef(m.ID, "release")}); err != nil {
			return err
		}
		blocked = amount
	}
	r, err := s.refunds.New(tx, o, pix.RefundRequest{ID: "MED" + strconv.FormatInt(m.ID, 10), Amount: amount, Nature: pix.MEDCauses[m.Cause],
		Description: "Devolução MED " + itoa(m.ID)}, now)
	if err != nil {
		return err
	}
	r.MEDID = m.ID
	m.RefundID = r.ID
	return s.refunds.Start(tx, &r, &blocked, now)
}

// MED jobs: each runs its step at its deadline, once.
func (s *Simulator) medJob(step func(tx storage.Tx, m *pix.MED, now time.Time) error, from pix.MEDStatus) agenda.Handler {
	return func(ctx context.Context, now time.Time, j agenda.Job) error {
		id, err := strconv.ParseInt(string(j.Payload), 10, 64)
		if err != nil {
			return nil
		}
		return s.store.Update(ctx, func(tx storage.Tx) error {
			m, err := tx.MED(id)
			if errors.Is(err, storage.ErrNotFound) {
				return nil
			}
			if err != nil || m.Status != from {
				return err
			}
			if err := step(tx, &m, now); err != nil {
				return err
			}
			return tx.PutMED(m)
		})
	}
}

func (s *Simulator) registerMEDJobs() {
	s.agenda.Handle(jobMEDOpen, s.medOpenJob)
	s.agenda.Handle(jobMEDAcknowledge, s.medJob(s.receiveMED, pix.MEDStatusOpen))
	s.agenda.Handle(jobMEDAnalyze, s.medJob(func(tx storage.Tx, m *pix.MED, now time.Time) error {
		sc, _ := scenarios.Lookup(m.Scenario)
		if sc.Cancel {
			return s.cancelMED(tx, m, now)
		}
		result := pix.MEDResultApproved // Gap G-48: at the deadline the analysis approves unless a scenario says otherwise
		if sc.Result != "" {
			result = sc.Result
		}
		return s.analyzeMED(tx, m, result, "Analysed at the deadline", now)
	}, pix.MEDStatusReceived))
	s.agenda.Handle(jobMEDRefund, s.medJob(func(tx storage.Tx, m *pix.MED, now time.Time) error {
		if m.AnalysisResult != pix.MEDResultApproved || m.RefundID != "" {
			return nil
		}
		return s.refundMED(tx, m, now)
	}, pix.MEDStatusAnalyzed))
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
		if ok, wait := s.limits.Allow("med/"+itoa(int64(id)), st.EffectiveMEDRateLimit(), now); !ok {
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
	var m pix.MED
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		m, err = tx.MED(id)
		return refs.NotFound(err, "MED %d not found", id)
	})
	return m, err
}
