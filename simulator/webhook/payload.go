package webhook

import (
	"strconv"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/wire"
)

// Webhook bodies. The V2 envelope and the CashOut payload are spec "Events >
// Envelope V2" and "Resources > Cash-out webhook payload"; field names are the
// spec's, money follows each table (V2 payment.amount is a string, CashOut
// amounts are numbers).

// Envelope is the V2 webhook envelope: type and data.
type Envelope struct {
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
	FeeAmount       wire.Money        `json:"feeAmount"`
	OriginalAmount  wire.Money        `json:"originalAmount"`
	FinalAmount     wire.Money        `json:"finalAmount"`
	ProcessingDate  string            `json:"processingDate"`
	ErrorCode       *string           `json:"errorCode"`
	ErrorMessage    *string           `json:"errorMessage"`
	Counterpart     cashOutParty      `json:"counterpart"`
	Metadata        map[string]string `json:"metadata"`
}

func newMovement(event, movementType string, t pix.Transaction, final pix.Cents) movement {
	m := movement{
		Event: event, Status: string(t.Status), TransactionType: "PIX", MovementType: movementType,
		TransactionID: strconv.FormatInt(t.ID, 10), ExternalID: t.ExternalID,
		FeeAmount: wire.Money(t.Fee), OriginalAmount: wire.Money(t.Amount), FinalAmount: wire.Money(final),
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

// CashOut is the CashOut webhook.
type CashOut struct {
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

// CashOutPayload builds the CashOut webhook of a cash-out or split; pixKey
// is the key as the client sent it (11987654321 stays 11987654321, an EVP
// keeps its form, an email its case), not as the DICT knows it.
func CashOutPayload(t pix.Transaction) CashOut {
	key := t.PixKeySent
	if key == "" {
		key = t.PixKey
	}
	return CashOut{movement: newMovement("CashOut", "DEBIT", t, t.Hold()), EndToEndID: t.EndToEndID, PixKey: key}
}

// TransferPayload builds the TRANSFER envelope of a settled or failed DICT transfer.
func TransferPayload(t pix.Transaction) Envelope {
	d := transferData{
		ID: t.ID, TxID: wire.Optional(t.TxID), PixKey: t.PixKey, Status: "LIQUIDATED",
		Payment: v2Payment{Amount: transferAmount(t.Amount), Currency: "BRL"}, EndToEndID: t.EndToEndID,
		CreditDebitType: "DEBIT", IdempotencyKey: t.IdempotencyKey,
		CreditorAccount:       v2Party{Name: t.Counterpart.Name, Document: pix.MaskDocument(t.Counterpart.Document), ISPB: t.Counterpart.ISPB},
		RemittanceInformation: wire.Optional(t.Description),
	}
	if t.Status == pix.TxStatusError {
		d.Status, d.ErrorCode, d.ErrorMessage = "ERROR", string(t.ErrorCode), t.ErrorMessage
	}
	return Envelope{Type: "TRANSFER", Data: d}
}

// transferAmount and receiveAmount write the payment.amount of a TRANSFER
// and a RECEIVE envelope: the amount with 2 decimals. A build with the faults
// tag replaces them (faults.go).
var transferAmount, receiveAmount = pix.Cents.Decimal2, pix.Cents.Decimal2

// ReceivePayload builds the RECEIVE envelope of a PIX received (a cob paid,
// a cash-in charge paid or expired, a PIX by key).
func ReceivePayload(t pix.Transaction) Envelope {
	d := receiveData{
		ID: t.ID, TxID: wire.Optional(t.TxID), Status: "LIQUIDATED", Payment: v2Payment{Amount: receiveAmount(t.Amount), Currency: "BRL"},
		EndToEndID: wire.Optional(t.EndToEndID), DebtorAccount: v2Party{Name: t.Counterpart.Name, Document: pix.MaskDocument(t.Counterpart.Document)},
	}
	if t.Status == pix.TxStatusError {
		d.Status, d.ErrorCode, d.ErrorMessage = "ERROR", string(t.ErrorCode), t.ErrorMessage
	}
	return Envelope{Type: "RECEIVE", Data: d}
}

// CashIn is the cash_in webhook of a cash-in charge. The spec does not
// show it (Gap G-38); it mirrors the CashOut payload: event "CashIn", status
// CONFIRMED (paid) or ERROR (expired, errorCode PAYMENT_EXPIRED), movementType
// CREDIT, the payer as counterpart, feeAmount/originalAmount/finalAmount (final =
// original − fee, what the account received), and the charge's additionalInfo as
// metadata.
type CashIn struct {
	movement
	CorrelationID string  `json:"correlationId"`
	EndToEndID    *string `json:"endToEndId"`
}

// CashInPayload builds the flat CashIn webhook of a cash-in charge.
func CashInPayload(t pix.Transaction, ch pix.Charge) CashIn {
	final := t.Amount - t.Fee
	if t.Status == pix.TxStatusError {
		final = 0 // nothing was received
	}
	p := CashIn{movement: newMovement("CashIn", "CREDIT", t, final), CorrelationID: ch.CorrelationID, EndToEndID: wire.Optional(t.EndToEndID)}
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
	Amount   wire.Money `json:"amount"`
	Currency string     `json:"currency"`
}

func newV2Refund(r pix.Refund, status string) v2Refund {
	return v2Refund{Status: status, Payment: v2RefundPayment{Amount: wire.Money(r.Amount), Currency: "BRL"},
		EndToEndID: r.RtrID, EventDate: wire.Time(r.SettledAt), Information: wire.Optional(r.Description)}
}

// RefundPayload builds the REFUND envelope of refund r of the PIX o for the
// transaction id (the refunder's REFUND_IN, or the payer's REFUND_OUT); all,
// when given, is every refund of o (the refunding side's view).
func RefundPayload(o pix.Transaction, r pix.Refund, all []pix.Refund, id int64) Envelope {
	d := refundData{ID: id, TxID: wire.Optional(o.TxID), Status: "REFUNDED",
		Payment: v2Payment{Amount: o.Amount.Decimal2(), Currency: "BRL"}, EndToEndID: o.EndToEndID,
		CreditDebitType: "DEBIT", // spec "Events > Envelope V2", REFUND row, on both sides
		RefundID:        r.ID, RtrID: r.RtrID, Nature: string(r.Nature), Refunds: []v2Refund{}}
	if r.Status == pix.RefundStatusNaoRealizado {
		d.Status, d.Motivo = "ERROR", wire.Optional(r.Motivo)
		d.Refunds = append(d.Refunds, newV2Refund(r, "ERROR"))
		return Envelope{Type: "REFUND", Data: d}
	}
	if all == nil {
		all = []pix.Refund{r}
	}
	for _, x := range all {
		if x.Status == pix.RefundStatusDevolvido || x.ID == r.ID {
			d.Refunds = append(d.Refunds, newV2Refund(x, "LIQUIDATED"))
		}
	}
	return Envelope{Type: "REFUND", Data: d}
}

// MEDEvent is the body of the med_created, med_accepted and med_rejected
// webhooks. The spec shows none of them (Gap G-51): {"event": <type>, "med":
// <the MED resource as GET /api/med lists it>}.
type MEDEvent struct {
	Event string   `json:"event"`
	MED   wire.MED `json:"med"`
}

// MEDPayload builds a MED webhook of the given event type.
func MEDPayload(event string, m pix.MED) MEDEvent {
	return MEDEvent{Event: event, MED: wire.NewMED(m)}
}
