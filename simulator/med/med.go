package med

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pixsandbox/pixsandbox/scenarios"
	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/refs"
	"github.com/pixsandbox/pixsandbox/simulator/refund"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
	"github.com/pixsandbox/pixsandbox/simulator/webhook/outbox"
)

// Tx is the slice of a store transaction the MED process touches: the MED
// records and everything a MED refund touches (refund.Tx: the account, the
// original PIX, the ledger for the block, sequences, jobs for the deadlines,
// the webhook outbox).
type Tx interface {
	refund.Tx
	storage.MEDTx
}

// Process runs the MED timeline inside store transactions. The core sets its
// fields once.
type Process struct {
	// Deadlines are the configured deadlines; a scenario may replace the
	// analysis deadline.
	Deadlines pix.MEDTimeline
	// Sandbox is the sandbox's institution (the contested bank); Bank finds
	// a participant by ISPB.
	Sandbox pix.Bank
	Bank    func(ispb string) (pix.Bank, bool)
	// Refunds starts the refund of an approved MED.
	Refunds *refund.Process
}

// Deadlines are the MED deadlines configured in cfg, pix.DefaultMEDTimeline's
// where zero.
func Deadlines(cfg pix.MEDTimeline) pix.MEDTimeline {
	tl := pix.DefaultMEDTimeline
	if cfg.Acknowledge > 0 {
		tl.Acknowledge = cfg.Acknowledge
	}
	if cfg.Analysis > 0 {
		tl.Analysis = cfg.Analysis
	}
	if cfg.Refund > 0 {
		tl.Refund = cfg.Refund
	}
	return tl
}

// MED job kinds.
const (
	jobMEDOpen        = "med.open"        // a charge scenario's MED opens
	jobMEDAcknowledge = "med.acknowledge" // OPEN → RECEIVED, block
	jobMEDAnalyze     = "med.analyze"     // RECEIVED → ANALYZED (or CANCELLED by scenario)
	jobMEDRefund      = "med.refund"      // APPROVED → the MED refund
)

func jobID(kind string, id int64) string { return kind + "-" + strconv.FormatInt(id, 10) }

// Validate checks a MED's opening request: a known cause, a 32-character
// end-to-end id and a description of at most 500 characters.
func Validate(in pix.MEDOpen) error {
	var vs []pix.Violation
	if _, ok := pix.MEDCauses[in.Cause]; !ok {
		vs = append(vs, pix.Violation{Field: "cause", Message: "must be one of " + strings.Join(causeNames(), ", ")})
	}
	if !pix.ValidE2EPath(in.EndToEndID) {
		vs = append(vs, pix.Violation{Field: "endToEndId", Message: "must be 32 alphanumerics"})
	}
	if utf8.RuneCountInString(in.Description) > 500 {
		vs = append(vs, pix.Violation{Field: "description", Message: "must be at most 500 characters"})
	}
	if len(vs) > 0 {
		return pix.Invalid(pix.CodeInvalidRequest, vs...)
	}
	return nil
}

func causeNames() []string {
	out := make([]string, 0, len(pix.MEDCauses))
	for c := range pix.MEDCauses {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// Open opens a MED against a PIX the account received, as the payer's bank
// does through DICT. When the end-to-end id matches a received PIX of the
// account the MED is reconciled (originalTransactionId, a snapshot with a
// masked document) and its timeline moves money; otherwise it is recorded
// only. in must be valid (Validate).
func (p *Process) Open(tx Tx, in pix.MEDOpen, now time.Time) (pix.MED, error) {
	if _, err := tx.Account(in.AccountID); err != nil {
		return pix.MED{}, refs.NotFound(err, "account %d not found", in.AccountID)
	}
	id, err := tx.NextID("med")
	if err != nil {
		return pix.MED{}, err
	}
	m := pix.MED{ID: id, AccountID: in.AccountID, EndToEnd: in.EndToEndID, Status: pix.MEDStatusOpen, Reason: pix.MEDReasonRefundRequest,
		Cause: in.Cause, Description: in.Description, RequestingBank: in.RequestingBank,
		ContestedBank: pix.BankRef{ISPB: p.Sandbox.ISPB, Name: p.Sandbox.Name}, Scenario: in.Scenario, CreatedAt: now, UpdatedAt: now}
	o, err := tx.TransactionByE2E(in.AccountID, in.EndToEndID)
	received := err == nil && refund.IsReceipt(o)
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
	b, known := p.Bank(m.RequestingBank.ISPB)
	if !known || m.RequestingBank.ISPB == p.Sandbox.ISPB {
		return pix.MED{}, pix.Invalid(pix.CodeInvalidRequest, pix.Violation{Field: "requestingBank.ispb", Message: "must be a participant outside the sandbox (GET /_sandbox/banks)"})
	}
	if m.RequestingBank.Name == "" {
		m.RequestingBank.Name = b.Name
	}
	if err := tx.PutMED(m); err != nil {
		return pix.MED{}, err
	}
	tl := p.timeline(m)
	for kind, due := range map[string]time.Time{jobMEDAcknowledge: now.Add(tl.Acknowledge), jobMEDAnalyze: now.Add(tl.Analysis)} {
		if err := tx.PutJob(agenda.Job{ID: jobID(kind, m.ID), Kind: kind, Due: due, Payload: []byte(strconv.FormatInt(m.ID, 10))}); err != nil {
			return pix.MED{}, err
		}
	}
	return m, outbox.Emit(tx, m.AccountID, webhook.EventMedCreated, "MED", m.OriginalTransactionID, webhook.MEDPayload("med_created", m), now)
}

// timeline is the MED's deadlines: the configured ones, the analysis
// replaced by a scenario's.
func (p *Process) timeline(m pix.MED) pix.MEDTimeline {
	tl := p.Deadlines
	if sc, ok := scenarios.Lookup(m.Scenario); ok && sc.AnalysisAfter > 0 {
		tl.Analysis = sc.AnalysisAfter
	}
	if tl.Acknowledge > tl.Analysis {
		tl.Acknowledge = tl.Analysis
	}
	return tl
}

// ScheduleForCharge schedules the MED of a charge scenario once the charge is
// paid.
func ScheduleForCharge(tx storage.JobTx, scenario string, paid pix.Transaction, now time.Time) error {
	sc, ok := scenarios.Lookup(scenario)
	if !ok || sc.Phase != scenarios.MED {
		return nil
	}
	payload, err := json.Marshal(pix.MEDOpen{AccountID: paid.AccountID, EndToEndID: paid.EndToEndID, Cause: "UNAUTHORIZED_TRANSACTION",
		Description: "Opened by scenario " + sc.Name, Scenario: sc.Name})
	if err != nil {
		return err
	}
	return tx.PutJob(agenda.Job{ID: "medopen-" + strconv.FormatInt(paid.ID, 10), Kind: jobMEDOpen, Due: now.Add(sc.Delay), Payload: payload})
}

// openJob is the handler of a charge scenario's MED opening over store.
func (p *Process) openJob(store storage.Store) agenda.Handler {
	return func(ctx context.Context, now time.Time, j agenda.Job) error {
		return p.openFromJob(ctx, store, now, j)
	}
}

func (p *Process) openFromJob(ctx context.Context, store storage.Store, now time.Time, j agenda.Job) error {
	var in pix.MEDOpen
	if err := json.Unmarshal(j.Payload, &in); err != nil {
		return nil
	}
	return store.Update(ctx, func(tx storage.Tx) error {
		_, err := p.Open(tx, in, now)
		return err
	})
}

// conflict refuses a step the MED's status does not allow (409).
func conflict(m pix.MED, step string) error {
	return pix.Errorf(pix.KindConflict, pix.CodeInvalidRequest, "MED %d is %s and cannot be %s", m.ID, m.Status, step)
}

// Receive acknowledges a MED (OPEN → RECEIVED, under analysis) and blocks
// the contested amount, bounded by what is available (Gap G-50).
func (p *Process) Receive(tx Tx, m *pix.MED, now time.Time) error {
	if !m.Status.CanBecome(pix.MEDStatusReceived) {
		return conflict(*m, "received")
	}
	return p.receive(tx, m, now)
}

func (p *Process) receive(tx Tx, m *pix.MED, now time.Time) error {
	m.Status, m.UpdatedAt = pix.MEDStatusReceived, now
	if err := tx.DeleteJob(jobID(jobMEDAcknowledge, m.ID)); err != nil {
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

// Analyze closes the analysis of a MED under analysis with result, APPROVED
// or REJECTED. An OPEN MED is received first.
func (p *Process) Analyze(tx Tx, m *pix.MED, result, details string, now time.Time) error {
	if m.Status == pix.MEDStatusOpen {
		if err := p.receive(tx, m, now); err != nil {
			return err
		}
	}
	if !m.Status.CanBecome(pix.MEDStatusAnalyzed) {
		return conflict(*m, "analyzed")
	}
	return p.analyze(tx, m, result, details, now)
}

func (p *Process) analyze(tx Tx, m *pix.MED, result, details string, now time.Time) error {
	m.Status, m.AnalysisResult, m.AnalysisDetails, m.UpdatedAt = pix.MEDStatusAnalyzed, result, details, now
	if err := tx.DeleteJob(jobID(jobMEDAnalyze, m.ID)); err != nil {
		return err
	}
	if result == pix.MEDResultRejected {
		if err := p.releaseBlock(tx, m, now); err != nil {
			return err
		}
		return outbox.Emit(tx, m.AccountID, webhook.EventMedRejected, "MED", m.OriginalTransactionID, webhook.MEDPayload("med_rejected", *m), now)
	}
	if err := tx.PutJob(agenda.Job{ID: jobID(jobMEDRefund, m.ID), Kind: jobMEDRefund, Due: now.Add(p.Deadlines.Refund), Payload: []byte(strconv.FormatInt(m.ID, 10))}); err != nil {
		return err
	}
	return outbox.Emit(tx, m.AccountID, webhook.EventMedAccepted, "MED", m.OriginalTransactionID, webhook.MEDPayload("med_accepted", *m), now)
}

// Cancel withdraws a MED not yet analysed (reason REFUND_CANCELLATION) and
// releases its block. No webhook type exists for it (Gap G-46).
func (p *Process) Cancel(tx Tx, m *pix.MED, now time.Time) error {
	if !m.Status.CanBecome(pix.MEDStatusCancelled) {
		return conflict(*m, "cancelled")
	}
	return p.cancel(tx, m, now)
}

func (p *Process) cancel(tx Tx, m *pix.MED, now time.Time) error {
	m.Status, m.Reason, m.UpdatedAt = pix.MEDStatusCancelled, pix.MEDReasonRefundCancellation, now
	for _, kind := range []string{jobMEDAcknowledge, jobMEDAnalyze} {
		if err := tx.DeleteJob(jobID(kind, m.ID)); err != nil {
			return err
		}
	}
	return p.releaseBlock(tx, m, now)
}

func (p *Process) releaseBlock(tx Tx, m *pix.MED, now time.Time) error {
	if m.BlockedAmount == 0 {
		return nil
	}
	_, err := tx.Move(ledger.Entry{At: now, From: ledger.BlockedOf(m.AccountID), To: ledger.AvailableOf(m.AccountID), Amount: m.BlockedAmount, Ref: refs.MEDRef(m.ID, "release")})
	m.BlockedAmount = 0
	return err
}

// Refund refunds the payer of an approved MED now (the refund job does it at
// its deadline).
func (p *Process) Refund(tx Tx, m *pix.MED, now time.Time) error {
	if m.Status != pix.MEDStatusAnalyzed || m.AnalysisResult != pix.MEDResultApproved || m.RefundID != "" {
		return conflict(*m, "refunded")
	}
	if !m.IsReconciled {
		return pix.Errorf(pix.KindConflict, pix.CodeInvalidRequest, "MED %d matches no received PIX of the account: there is nothing to refund", m.ID)
	}
	return p.refund(tx, m, now)
}

// refund creates the MED's refund (natureza MED_FRAUDE, or MED_OPERACIONAL
// for an operational flaw) of the contested amount, at most what is left to
// refund and what can be recovered (the block plus what is available), out of
// the MED's block first; whatever the block holds beyond it is released. It is visible through both refund routes and the listings; clients
// cannot create one.
func (p *Process) refund(tx Tx, m *pix.MED, now time.Time) error {
	if err := tx.DeleteJob(jobID(jobMEDRefund, m.ID)); err != nil {
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
		return p.releaseBlock(tx, m, now)
	}
	if blocked > amount {
		if _, err := tx.Move(ledger.Entry{At: now, From: ledger.BlockedOf(m.AccountID), To: ledger.AvailableOf(m.AccountID), Amount: blocked - amount, Ref: refs.MEDRef(m.ID, "release")}); err != nil {
			return err
		}
		blocked = amount
	}
	r, err := p.Refunds.New(tx, o, pix.RefundRequest{ID: "MED" + strconv.FormatInt(m.ID, 10), Amount: amount, Nature: pix.MEDCauses[m.Cause],
		Description: "Devolução MED " + strconv.FormatInt(m.ID, 10)}, now)
	if err != nil {
		return err
	}
	r.MEDID = m.ID
	m.RefundID = r.ID
	return p.Refunds.Start(tx, &r, &blocked, now)
}

// job is the handler of a MED job over store: it runs its step at its
// deadline, once, while the MED is still in status from.
func job(store storage.Store, step func(tx Tx, m *pix.MED, now time.Time) error, from pix.MEDStatus) agenda.Handler {
	return func(ctx context.Context, now time.Time, j agenda.Job) error {
		id, err := strconv.ParseInt(string(j.Payload), 10, 64)
		if err != nil {
			return nil
		}
		return store.Update(ctx, func(tx storage.Tx) error {
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

// Handlers are the handlers of the MED jobs over store, by job kind.
func (p *Process) Handlers(store storage.Store) map[string]agenda.Handler {
	return map[string]agenda.Handler{
		jobMEDOpen:        p.openJob(store),
		jobMEDAcknowledge: job(store, p.receive, pix.MEDStatusOpen),
		jobMEDAnalyze:     job(store, p.analyzeAtDeadline, pix.MEDStatusReceived),
		jobMEDRefund:      job(store, p.refundAtDeadline, pix.MEDStatusAnalyzed),
	}
}

// analyzeAtDeadline closes the analysis at its deadline: approved unless a
// scenario rejects or cancels (Gap G-48).
func (p *Process) analyzeAtDeadline(tx Tx, m *pix.MED, now time.Time) error {
	sc, _ := scenarios.Lookup(m.Scenario)
	if sc.Cancel {
		return p.cancel(tx, m, now)
	}
	result := pix.MEDResultApproved // Gap G-48: at the deadline the analysis approves unless a scenario says otherwise
	if sc.Result != "" {
		result = sc.Result
	}
	return p.analyze(tx, m, result, "Analysed at the deadline", now)
}

// refundAtDeadline refunds an approved MED not yet refunded at its deadline.
func (p *Process) refundAtDeadline(tx Tx, m *pix.MED, now time.Time) error {
	if m.AnalysisResult != pix.MEDResultApproved || m.RefundID != "" {
		return nil
	}
	return p.refund(tx, m, now)
}
