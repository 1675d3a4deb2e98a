package simulator

import (
	"strings"
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/faults"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// Webhook bodies. The V2 envelope and the CashOut payload are spec "Events >
// Envelope V2" and "Resources > Cash-out webhook payload"; field names are the
// spec's, money follows each table (V2 payment.amount is a string, CashOut
// amounts are numbers).

// decimalNumber renders centavos as a JSON number with two decimals.
type decimalNumber = wire.Money

type v2Envelope struct {
	Type string `json:"type"`
	Data any    `json:"data"`
}

type v2Payment struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

type v2Party struct {
	Name     string `json:"name"`
	Document string `json:"document"`
	ISPB     string `json:"ispb,omitempty"`
}

// transferData is the TRANSFER envelope's data (POST /dict/pix, at settlement).
// Gap G-28: on failure status is "ERROR" with errorCode and errorMessage added.
type transferData struct {
	ID                    int64     `json:"id"`
	TxID                  *string   `json:"txId"`
	PixKey                string    `json:"pixKey"`
	Status                string    `json:"status"`
	Payment               v2Payment `json:"payment"`
	EndToEndID            string    `json:"endToEndId"`
	CreditDebitType       string    `json:"creditDebitType"`
	IdempotencyKey        string    `json:"idempotencyKey"`
	CreditorAccount       v2Party   `json:"creditorAccount"`
	RemittanceInformation *string   `json:"remittanceInformation"`
	ErrorCode             string    `json:"errorCode,omitempty"`
	ErrorMessage          string    `json:"errorMessage,omitempty"`
}

// receiveData is the RECEIVE envelope's data. Gap G-38: a cash-in charge that
// expired unpaid sends status "ERROR" with errorCode and errorMessage and a
// null endToEndId, as a failed TRANSFER does (Gap G-28).
type receiveData struct {
	ID            int64     `json:"id"`
	TxID          *string   `json:"txId"`
	Status        string    `json:"status"`
	Payment       v2Payment `json:"payment"`
	EndToEndID    *string   `json:"endToEndId"`
	DebtorAccount v2Party   `json:"debtorAccount"`
	ErrorCode     string    `json:"errorCode,omitempty"`
	ErrorMessage  string    `json:"errorMessage,omitempty"`
}

// movement is what the CashOut and CashIn payloads share (spec "Resources >
// Cash-out webhook payload"; the CashIn payload mirrors it, Gap G-38).
type movement struct {
	Event           string            `json:"event"`
	Status          string            `json:"status"`
	TransactionType string            `json:"transactionType"`
	MovementType    string            `json:"movementType"`
	TransactionID   string            `json:"transactionId"`
	ExternalID      string            `json:"externalId"`
	FeeAmount       decimalNumber     `json:"feeAmount"`
	OriginalAmount  decimalNumber     `json:"originalAmount"`
	FinalAmount     decimalNumber     `json:"finalAmount"`
	ProcessingDate  string            `json:"processingDate"`
	ErrorCode       *string           `json:"errorCode"`
	ErrorMessage    *string           `json:"errorMessage"`
	Counterpart     cashOutParty      `json:"counterpart"`
	Metadata        map[string]string `json:"metadata"`
}

func newMovement(event, movementType string, t pix.Transaction, final pix.Cents) movement {
	m := movement{
		Event: event, Status: string(t.Status), TransactionType: "PIX", MovementType: movementType,
		TransactionID: itoa(t.ID), ExternalID: t.ExternalID,
		FeeAmount: decimalNumber(t.Fee), OriginalAmount: decimalNumber(t.Amount), FinalAmount: decimalNumber(final),
		ProcessingDate: wire.Time(t.ProcessedAt),
		Counterpart: cashOutParty{Name: t.Counterpart.Name, Document: pix.MaskDocument(t.Counterpart.Document),
			Bank: cashOutBank{BankISPB: t.Counterpart.ISPB, BankName: t.Counterpart.BankName, BankCode: t.Counterpart.BankCode,
				AccountBranch: wire.Optional(t.Counterpart.Branch), AccountNumber: wire.Optional(t.Counterpart.AccountNumber)}},
		Metadata: map[string]string{},
	}
	if t.Status == pix.TxStatusError {
		m.ErrorCode, m.ErrorMessage = wire.Optional(string(t.ErrorCode)), wire.Optional(t.ErrorMessage)
	}
	return m
}

// cashOutPayload is the CashOut webhook.
type cashOutPayload struct {
	movement
	EndToEndID string `json:"endToEndId"`
	PixKey     string `json:"pixKey"`
}

type cashOutParty struct {
	Name     string      `json:"name"`
	Document string      `json:"document"`
	Bank     cashOutBank `json:"bank"`
}

type cashOutBank struct {
	BankISPB      string  `json:"bankISPB"`
	BankName      string  `json:"bankName"`
	BankCode      string  `json:"bankCode"`
	AccountBranch *string `json:"accountBranch"`
	AccountNumber *string `json:"accountNumber"`
}

// newCashOutPayload builds the CashOut webhook of a cash-out or split; pixKey
// is the key as the client sent it (11987654321 stays 11987654321, an EVP
// keeps its form, an email its case), not as the DICT knows it.
func newCashOutPayload(t pix.Transaction) cashOutPayload {
	key := t.PixKeySent
	if key == "" {
		key = t.PixKey
	}
	return cashOutPayload{movement: newMovement("CashOut", "DEBIT", t, t.Hold()), EndToEndID: t.EndToEndID, PixKey: key}
}

func newTransferPayload(t pix.Transaction) v2Envelope {
	amount := t.Amount.Decimal2()
	if faults.On(faults.TransferAmountTrimmed) {
		amount = strings.TrimSuffix(strings.TrimRight(amount, "0"), ".")
	}
	d := transferData{
		ID: t.ID, TxID: wire.Optional(t.TxID), PixKey: t.PixKey, Status: "LIQUIDATED",
		Payment: v2Payment{Amount: amount, Currency: "BRL"}, EndToEndID: t.EndToEndID,
		CreditDebitType: "DEBIT", IdempotencyKey: t.IdempotencyKey,
		CreditorAccount:       v2Party{Name: t.Counterpart.Name, Document: pix.MaskDocument(t.Counterpart.Document), ISPB: t.Counterpart.ISPB},
		RemittanceInformation: wire.Optional(t.Description),
	}
	if t.Status == pix.TxStatusError {
		d.Status, d.ErrorCode, d.ErrorMessage = "ERROR", string(t.ErrorCode), t.ErrorMessage
	}
	return v2Envelope{Type: "TRANSFER", Data: d}
}

func receivePayload(t pix.Transaction) v2Envelope {
	d := receiveData{
		ID: t.ID, TxID: wire.Optional(t.TxID), Status: "LIQUIDATED", Payment: v2Payment{Amount: t.Amount.Decimal2(), Currency: "BRL"},
		EndToEndID: wire.Optional(t.EndToEndID), DebtorAccount: v2Party{Name: t.Counterpart.Name, Document: pix.MaskDocument(t.Counterpart.Document)},
	}
	if t.Status == pix.TxStatusError {
		d.Status, d.ErrorCode, d.ErrorMessage = "ERROR", string(t.ErrorCode), t.ErrorMessage
	}
	return v2Envelope{Type: "RECEIVE", Data: d}
}

// emitCashIn sends the outcome webhook of a cash-in charge (paid or expired)
// to the account's cash_in targets, in the shape the account's settings or
// the server's default choose (Gap G-38): V2 RECEIVE, whose data.id is the
// charge's transactionId and txId the charge's txid, or the flat CashIn.
func (s *Simulator) emitCashIn(tx storage.Tx, t pix.Transaction, ch pix.Charge, now time.Time) error {
	shape := s.cashInWebhook
	a, err := tx.Account(t.AccountID)
	if err != nil {
		return err
	}
	st, err := settingsOf(tx, a)
	if err != nil {
		return err
	}
	if st.CashInWebhook.Valid() {
		shape = st.CashInWebhook
	}
	if shape == pix.CashInWebhookCashIn {
		return s.emit(tx, t.AccountID, webhookEventCashIn, "CashIn", t.ID, newCashInPayload(t, ch), now)
	}
	return s.emit(tx, t.AccountID, webhookEventCashIn, "RECEIVE", t.ID, receivePayload(t), now)
}

// emitPixOut sends the outcome webhook of a PIX out to the account's cash_out
// targets: TRANSFER (V2) for a DICT transfer, CashOut for a cash-out or a split.
func (s *Simulator) emitPixOut(tx storage.Tx, t pix.Transaction, now time.Time) error {
	if t.Kind == pix.TxTransfer {
		return s.emit(tx, t.AccountID, webhook.EventCashOut, "TRANSFER", t.ID, newTransferPayload(t), now)
	}
	return s.emit(tx, t.AccountID, webhook.EventCashOut, "CashOut", t.ID, newCashOutPayload(t), now)
}

// cashInPayload is the cash_in webhook of a cash-in charge. The spec does not
// show it (Gap G-38); it mirrors the CashOut payload: event "CashIn", status
// CONFIRMED (paid) or ERROR (expired, errorCode PAYMENT_EXPIRED), movementType
// CREDIT, the payer as counterpart, feeAmount/originalAmount/finalAmount (final =
// original − fee, what the account received), and the charge's additionalInfo as
// metadata.
type cashInPayload struct {
	movement
	CorrelationID string  `json:"correlationId"`
	EndToEndID    *string `json:"endToEndId"`
}

func newCashInPayload(t pix.Transaction, ch pix.Charge) cashInPayload {
	final := t.Amount - t.Fee
	if t.Status == pix.TxStatusError {
		final = 0 // nothing was received
	}
	p := cashInPayload{movement: newMovement("CashIn", "CREDIT", t, final), CorrelationID: ch.CorrelationID, EndToEndID: wire.Optional(t.EndToEndID)}
	for k, v := range ch.AdditionalInfo {
		p.Metadata[k] = v
	}
	return p
}

// refundData is the REFUND envelope's data (spec "Events > Envelope V2"): the
// original PIX (id, txId, payment, endToEndId) and its refunds. Gap G-49: on the
// refunding account's refund_in targets creditDebitType is DEBIT and refunds[]
// lists every settled refund of the PIX (status LIQUIDATED); a refund that ended
// NAO_REALIZADO is sent with status "ERROR", its refunds[] entry status "ERROR"
// and motivo; a sandbox payer's refund_out targets get the same envelope with
// the one refund it received. creditDebitType is DEBIT on both sides, as the
// contract's REFUND row fixes it.
type refundData struct {
	ID              int64      `json:"id"`
	TxID            *string    `json:"txId"`
	Status          string     `json:"status"`
	Payment         v2Payment  `json:"payment"`
	Refunds         []v2Refund `json:"refunds"`
	EndToEndID      string     `json:"endToEndId"`
	CreditDebitType string     `json:"creditDebitType"`
	RefundID        string     `json:"refundId"`
	RtrID           string     `json:"rtrId"`
	Nature          string     `json:"natureza"`
	Motivo          *string    `json:"motivo,omitempty"`
}

type v2Refund struct {
	Status      string          `json:"status"`
	Payment     v2RefundPayment `json:"payment"`
	EndToEndID  string          `json:"endToEndId"`
	EventDate   string          `json:"eventDate"`
	Information *string         `json:"information"`
}

type v2RefundPayment struct {
	Amount   decimalNumber `json:"amount"`
	Currency string        `json:"currency"`
}

func newV2Refund(r pix.Refund, status string) v2Refund {
	return v2Refund{Status: status, Payment: v2RefundPayment{Amount: decimalNumber(r.Amount), Currency: "BRL"},
		EndToEndID: r.RtrID, EventDate: wire.Time(r.SettledAt), Information: wire.Optional(r.Description)}
}

// newRefundPayload builds the REFUND envelope of refund r of the PIX o for the
// transaction id (the refunder's REFUND_IN, or the payer's REFUND_OUT); all,
// when given, is every refund of o (the refunding side's view).
func newRefundPayload(o pix.Transaction, r pix.Refund, all []pix.Refund, id int64) v2Envelope {
	d := refundData{ID: id, TxID: wire.Optional(o.TxID), Status: "REFUNDED",
		Payment: v2Payment{Amount: o.Amount.Decimal2(), Currency: "BRL"}, EndToEndID: o.EndToEndID,
		CreditDebitType: "DEBIT", // spec "Events > Envelope V2", REFUND row, on both sides
		RefundID:        r.ID, RtrID: r.RtrID, Nature: string(r.Nature), Refunds: []v2Refund{}}
	if r.Status == pix.RefundStatusNaoRealizado {
		d.Status, d.Motivo = "ERROR", wire.Optional(r.Motivo)
		d.Refunds = append(d.Refunds, newV2Refund(r, "ERROR"))
		return v2Envelope{Type: "REFUND", Data: d}
	}
	if all == nil {
		all = []pix.Refund{r}
	}
	for _, x := range all {
		if x.Status == pix.RefundStatusDevolvido || x.ID == r.ID {
			d.Refunds = append(d.Refunds, newV2Refund(x, "LIQUIDATED"))
		}
	}
	return v2Envelope{Type: "REFUND", Data: d}
}

// medPayload is the body of the med_created, med_accepted and med_rejected
// webhooks. The spec shows none of them (Gap G-51): {"event": <type>, "med":
// <the MED resource as GET /api/med lists it>}.
type medPayload struct {
	Event string   `json:"event"`
	MED   wire.MED `json:"med"`
}

func newMEDPayload(event string, m pix.MED) medPayload {
	return medPayload{Event: event, MED: wire.NewMED(m)}
}
