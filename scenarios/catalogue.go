package scenarios

import (
	"time"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// SlowSettlementDelay is how long SLOW_SETTLEMENT takes: long enough to watch a
// PENDING transaction, shorter than the DICT route's default expiration (600 s),
// so a transfer with a shorter expiration expires instead.
const SlowSettlementDelay = 5 * time.Minute

var pixOut = []Operation{OpCashOut, OpTransfer}

var charges = []Operation{OpCashIn, OpCob}

// AutoPaymentDelay is when AUTO_PAYMENT pays a charge after its creation.
const AutoPaymentDelay = 10 * time.Second

// catalogue is every X-Sandbox-Scenario value. A scenario's name is the code it
// produces, where one exists, so one vocabulary finds the spec row, this row, the
// simulator code and the conformance check.
var catalogue = []Scenario{
	{
		Name:       "PUB_AUTH_UPSTREAM_UNAVAILABLE",
		Summary:    "Reject the token request as if the upstream authentication service were unreachable (503); retry with exponential backoff.",
		Operations: []Operation{OpAuthToken},
		Phase:      AtRequest,
		Kind:       pix.KindUnavailable,
		Code:       pix.CodePubAuthUpstreamUnavailable,
		Spec:       "Errors > Token endpoint codes",
	},
	{
		Name:       "PUB_AUTH_UPSTREAM_ERROR",
		Summary:    "Reject the token request as if the upstream authentication service returned an unrecognised error (502).",
		Operations: []Operation{OpAuthToken},
		Phase:      AtRequest,
		Kind:       pix.KindUpstream,
		Code:       pix.CodePubAuthUpstreamError,
		Spec:       "Errors > Token endpoint codes",
	},
	{
		Name:       "PIX_INSUFFICIENT_BALANCE",
		Summary:    "Reject as if the available balance were below the amount plus fee (cash-out 400; POST /dict/pix 422).",
		Operations: pixOut,
		Phase:      AtRequest,
		Kind:       pix.KindInvalid,
		Code:       pix.CodePixInsufficientBalance,
		Spec:       "Errors > Cash-out and cash-in codes; Errors > Central Bank-compatible routes",
	},
	{
		Name:       "PIX_INVALID_PIX_KEY",
		Summary:    "Reject as if the key's format did not match its type (400).",
		Operations: pixOut,
		Phase:      AtRequest,
		Kind:       pix.KindInvalid,
		Code:       pix.CodePixInvalidPixKey,
		Spec:       "Errors > Cash-out and cash-in codes",
	},
	{
		Name:       "PIX_INVALID_AMOUNT",
		Summary:    "Reject as if the amount were below 0.01 or had more than 2 decimals (400).",
		Operations: []Operation{OpCashOut},
		Phase:      AtRequest,
		Kind:       pix.KindInvalid,
		Code:       pix.CodePixInvalidAmount,
		Spec:       "Errors > Cash-out and cash-in codes",
	},
	{
		Name:       "PIX_TRANSACTION_LIMIT_EXCEEDED",
		Summary:    "Reject as if the amount were above the per-transaction limit (400).",
		Operations: []Operation{OpCashOut},
		Phase:      AtRequest,
		Kind:       pix.KindInvalid,
		Code:       pix.CodePixTransactionLimitExceeded,
		Spec:       "Errors > Cash-out and cash-in codes",
	},
	{
		Name:       "PIX_DAILY_LIMIT_EXCEEDED",
		Summary:    "Reject as if the day's accumulated amount would pass the daily limit (400).",
		Operations: []Operation{OpCashOut},
		Phase:      AtRequest,
		Kind:       pix.KindInvalid,
		Code:       pix.CodePixDailyLimitExceeded,
		Spec:       "Errors > Cash-out and cash-in codes",
	},
	{
		Name:       "PIX_NIGHT_LIMIT_EXCEEDED",
		Summary:    "Reject as if the amount passed the night limit (20:00 to 06:00 in São Paulo) (400).",
		Operations: []Operation{OpCashOut},
		Phase:      AtRequest,
		Kind:       pix.KindInvalid,
		Code:       pix.CodePixNightLimitExceeded,
		Spec:       "Errors > Cash-out and cash-in codes",
	},
	{
		Name:       "PIX_DUPLICATE_EXTERNAL_ID",
		Summary:    "Reject as if the externalId had been used before (400; details.existingTransactionId is 0: no such transaction exists).",
		Operations: []Operation{OpCashOut},
		Phase:      AtRequest,
		Kind:       pix.KindInvalid,
		Code:       pix.CodePixDuplicateExternalID,
		Spec:       "Errors > Cash-out and cash-in codes",
	},
	{
		Name:       "DICT_KEY_NOT_FOUND",
		Summary:    "Reject as if the key were not in DICT (422).",
		Operations: []Operation{OpTransfer},
		Phase:      AtRequest,
		Kind:       pix.KindUnprocessable,
		Code:       pix.CodeDictKeyNotFound,
		Spec:       "Errors > Central Bank-compatible routes",
	},
	{
		Name:       "PROVIDER_FAILURE",
		Summary:    "Reject the charge as if the PIX provider could not be reached (500 HTTP_ERROR); retry.",
		Operations: []Operation{OpCashIn},
		Phase:      AtRequest,
		Kind:       pix.KindUnavailableProvider,
		Code:       pix.CodeHTTPError,
		Spec:       "Errors > Cash-out and cash-in codes (500 HTTP_ERROR)",
	},
	{
		Name:       "AUTO_PAYMENT",
		Summary:    "Accept the charge; a payer pays it in full 10 seconds of simulation time after creation.",
		Operations: charges,
		Phase:      Payer,
		Delay:      AutoPaymentDelay,
		Spec:       "States and transitions > Cash-in charge; Immediate charge (cob)",
	},
	{
		Name:        "LATE_PAYMENT",
		Summary:     "Accept the charge; a payment arrives 1 second after it expired and is refused (the charge stays expired; the refusal is recorded).",
		Operations:  charges,
		Phase:       Payer,
		Delay:       time.Second,
		AfterExpiry: true,
		Spec:        "States and transitions > Immediate charge (cob)",
	},
	{
		Name:         "SPLIT_FAILURE",
		Summary:      "Accept the charge; when it is paid, each split fails at settlement with ORDER_REJECTED and its amount stays with the account.",
		Operations:   []Operation{OpCashIn},
		Phase:        Splits,
		SplitFailure: pix.CodeOrderRejected,
		Spec:         "Endpoints > POST /api/pix/cash-in (splits)",
	},
	{
		Name:       "REFUND_FAILURE",
		Summary:    "Accept the refund (EM_PROCESSAMENTO / PENDING); processing fails: NAO_REALIZADO / ERROR with motivo, the hold back to available.",
		Operations: []Operation{OpRefund},
		Phase:      AtSettlement,
		Code:       pix.CodeOrderRejected,
		Spec:       "States and transitions > Refund (devolucao)",
	},
	{
		Name:       "MED_OPENED",
		Summary:    "Accept the charge; one day after it is paid, the payer's bank opens a MED (UNAUTHORIZED_TRANSACTION) that follows the default timeline (approved 7 days later, refunded 24 h after).",
		Operations: charges,
		Phase:      MED,
		Delay:      24 * time.Hour,
		Result:     pix.MEDResultApproved,
		Spec:       "Resources > MED",
	},
	{
		Name:          "MED_APPROVED",
		Summary:       "Accept the charge; an hour after it is paid a MED opens, is approved a day later and refunds the payer (MED_FRAUDE) 24 h after that.",
		Operations:    charges,
		Phase:         MED,
		Delay:         time.Hour,
		AnalysisAfter: 24 * time.Hour,
		Result:        pix.MEDResultApproved,
		Spec:          "Resources > MED",
	},
	{
		Name:          "MED_REJECTED",
		Summary:       "Accept the charge; an hour after it is paid a MED opens and is rejected a day later (the block is released).",
		Operations:    charges,
		Phase:         MED,
		Delay:         time.Hour,
		AnalysisAfter: 24 * time.Hour,
		Result:        pix.MEDResultRejected,
		Spec:          "Resources > MED",
	},
	{
		Name:          "MED_CANCELLED",
		Summary:       "Accept the charge; an hour after it is paid a MED opens and is cancelled by the requesting bank a day later (REFUND_CANCELLATION; the block is released).",
		Operations:    charges,
		Phase:         MED,
		Delay:         time.Hour,
		AnalysisAfter: 24 * time.Hour,
		Cancel:        true,
		Spec:          "Resources > MED",
	},
	{
		Name:       "SLOW_SETTLEMENT",
		Summary:    "Accept; settle after 5 minutes of simulation time instead of the settlement delay (a DICT transfer whose expiration is shorter expires first, ERROR PAYMENT_EXPIRED).",
		Operations: pixOut,
		Phase:      Timing,
		Delay:      SlowSettlementDelay,
		Spec:       "States and transitions > Cash-out transaction",
	},
	{
		Name:       "SETTLEMENT_PENDING",
		Summary:    "Accept; never settle until forced with POST /_sandbox/transactions/{id}/settle or /fail (a DICT transfer still expires at its expiration).",
		Operations: pixOut,
		Phase:      Timing,
		Never:      true,
		Spec:       "States and transitions > Cash-out transaction",
	},
}

func init() {
	// One scenario per settlement failure of the spec's errorCode table.
	for _, f := range pix.FailureReasons {
		retry := "not retryable"
		if f.Retryable {
			retry = "retryable: resend"
		}
		catalogue = append(catalogue, Scenario{
			Name:       string(f.Code),
			Summary:    "Accept (PENDING), then fail settlement: " + f.Message + " (" + retry + "); ERROR and a webhook with errorCode " + string(f.Code) + ", the hold released.",
			Operations: pixOut,
			Phase:      AtSettlement,
			Code:       f.Code,
			Spec:       "Resources > Cash-out webhook payload (errorCode table)",
		})
	}
}
