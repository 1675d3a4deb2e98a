package pix

import (
	"regexp"
	"slices"
	"time"
)

// RefundStatus is the status of a refund (spec "Resources > Refund (devolucao)").
type RefundStatus string

// Refund statuses.
const (
	RefundStatusEmProcessamento RefundStatus = "EM_PROCESSAMENTO"
	RefundStatusDevolvido       RefundStatus = "DEVOLVIDO"
	RefundStatusNaoRealizado    RefundStatus = "NAO_REALIZADO"
)

// refundTransitions is spec "States and transitions > Refund (devolucao)" as data.
var refundTransitions = map[RefundStatus][]RefundStatus{
	RefundStatusEmProcessamento: {RefundStatusDevolvido, RefundStatusNaoRealizado},
}

// CanBecome reports whether s may transition to next.
func (s RefundStatus) CanBecome(next RefundStatus) bool {
	return slices.Contains(refundTransitions[s], next)
}

// TxStatus is the refund-in route's status of a refund (spec "Resources >
// Refund-in"): PENDING, CONFIRMED or ERROR (Gap G-44).
func (s RefundStatus) TxStatus() TxStatus {
	switch s {
	case RefundStatusDevolvido:
		return TxStatusConfirmed
	case RefundStatusNaoRealizado:
		return TxStatusError
	}
	return TxStatusPending
}

// Nature is a refund's natureza. Spec: ORIGINAL or RETIRADA may be sent;
// MED_OPERACIONAL and MED_FRAUDE are returned only.
type Nature string

// Natures, with their pacs.004 reason codes (DOMAIN.md A4).
const (
	NatureOriginal       Nature = "ORIGINAL"        // MD06
	NatureRetirada       Nature = "RETIRADA"        // SL02
	NatureMedOperacional Nature = "MED_OPERACIONAL" // BE08
	NatureMedFraude      Nature = "MED_FRAUDE"      // FR01
)

// RefundWindow is how long after receipt a PIX may be refunded: spec "Limits",
// 89 days (the Central Bank says 90; DOMAIN.md deviation 1). Gap G-45: a refund
// is accepted while at most 89 × 24 hours have passed since the PIX settled.
const RefundWindow = 89 * 24 * time.Hour

// Refundable reports whether a PIX received at receivedAt may be refunded at now.
func Refundable(receivedAt, now time.Time) bool { return !now.After(receivedAt.Add(RefundWindow)) }

// Refund is a refund (devolução) of a received PIX, whichever route created it.
type Refund struct {
	ID                    string // the client's id (Central Bank route) = externalId (refund-in route)
	AccountID             AccountID
	OriginalTransactionID int64
	OriginalEndToEndID    string
	TransactionID         int64  // the REFUND_IN transaction in the listings
	RtrID                 string // the return's end-to-end id, D form
	Amount                Cents
	Nature                Nature
	Description           string // descricao
	Reason                string // refund-in reason
	Status                RefundStatus
	Motivo                string
	RequestedAt           time.Time
	SettledAt             time.Time
	Scenario              string
	MEDID                 int64 // set when a MED created it
}

var refundIDPattern = regexp.MustCompile(`^[a-zA-Z0-9]{1,35}$`)

// ValidRefundID reports whether s is a refund id: 1 to 35 alphanumerics (spec:
// 1 to 35 characters; the Central Bank's DevolucaoId pattern).
func ValidRefundID(s string) bool { return refundIDPattern.MatchString(s) }

var e2eShape = regexp.MustCompile(`^[a-zA-Z0-9]{32}$`)

// ValidE2EPath reports whether s is an e2eid as the refund route takes it:
// exactly 32 alphanumerics (spec "PUT /pix/{e2eid}/devolucao/{id}").
func ValidE2EPath(s string) bool { return e2eShape.MatchString(s) }

// RefundRequest is a refund as requested through either route.
type RefundRequest struct {
	ID          string
	Amount      Cents
	Nature      Nature
	Description string
	Reason      string
}

// ValidateRefundBody checks the Central Bank route's body (spec "PUT
// /pix/{e2eid}/devolucao/{id}"): valor a string with exactly 2 decimals, above
// zero; natureza ORIGINAL or RETIRADA (default ORIGINAL); descricao ≤ 140.
func ValidateRefundBody(valor string, hasValor bool, natureza, descricao string) (Cents, Nature, error) {
	var vs violations
	var amount Cents
	if !hasValor {
		vs.add("valor", "is required")
	} else {
		v, err := ParseDecimal2(valor)
		if err != nil || v < 1 {
			vs.add("valor", `must be a decimal string with exactly 2 decimals, at least "0.01"`)
		}
		amount = v
	}
	n := Nature(natureza)
	switch n {
	case "":
		n = NatureOriginal
	case NatureOriginal, NatureRetirada:
	case NatureMedOperacional, NatureMedFraude:
		vs.add("natureza", "must be ORIGINAL or RETIRADA: MED_OPERACIONAL and MED_FRAUDE are returned only and cannot be sent")
	default:
		vs.add("natureza", "must be ORIGINAL or RETIRADA")
	}
	vs.text("descricao", descricao, maxDescription, false)
	if len(vs) > 0 {
		return 0, "", Invalid(CodeInvalidRequest, vs...)
	}
	return amount, n, nil
}

// RefundOriginal names the PIX to refund: by end-to-end id (Central Bank route)
// or by transaction id, numeric or UUID (refund-in route).
type RefundOriginal struct {
	EndToEndID    string
	TransactionID string
}
