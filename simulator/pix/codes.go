package pix

// Code is a machine-readable error code, spelled exactly as the spec spells it on the wire.
type Code string

// Token endpoint codes. Spec "Errors > Token endpoint codes".
const (
	CodePubCertHeaderMissing           Code = "PUB_CERT_HEADER_MISSING"             // 400
	CodePubCertMalformedPEM            Code = "PUB_CERT_MALFORMED_PEM"              // 400
	CodePubRequestBodyInvalid          Code = "PUB_REQUEST_BODY_INVALID"            // 400
	CodePubCertNotYetValid             Code = "PUB_CERT_NOT_YET_VALID"              // 401
	CodePubCertExpired                 Code = "PUB_CERT_EXPIRED"                    // 401
	CodePubCertNotRegistered           Code = "PUB_CERT_NOT_REGISTERED"             // 401, also revoked certificates
	CodePubInvalidCredentials          Code = "PUB_INVALID_CREDENTIALS"             // 401
	CodePubCertNotAuthorizedForAccount Code = "PUB_CERT_NOT_AUTHORIZED_FOR_ACCOUNT" // 403
	CodePubAuthUpstreamError           Code = "PUB_AUTH_UPSTREAM_ERROR"             // 502
	CodePubAuthUpstreamUnavailable     Code = "PUB_AUTH_UPSTREAM_UNAVAILABLE"       // 503
)

// Cash-out and cash-in codes. Spec "Errors > Cash-out and cash-in codes".
const (
	CodeHTTPError                      Code = "HTTP_ERROR"                        // validation (400), auth (401), provider failure (500)
	CodePixInsufficientBalance         Code = "PIX_INSUFFICIENT_BALANCE"          // 400 (422 on POST /dict/pix)
	CodePixTransactionLimitExceeded    Code = "PIX_TRANSACTION_LIMIT_EXCEEDED"    // 400
	CodePixDailyLimitExceeded          Code = "PIX_DAILY_LIMIT_EXCEEDED"          // 400
	CodePixNightLimitExceeded          Code = "PIX_NIGHT_LIMIT_EXCEEDED"          // 400
	CodePixInvalidAmount               Code = "PIX_INVALID_AMOUNT"                // 400
	CodePixInvalidPixKey               Code = "PIX_INVALID_PIX_KEY"               // 400
	CodePixDuplicateExternalID         Code = "PIX_DUPLICATE_EXTERNAL_ID"         // 400, not 409
	CodeProviderExpirationBelowMinimum Code = "PROVIDER_EXPIRATION_BELOW_MINIMUM" // 400
)

// Codes of this sandbox, for situations the spec has no code for.
const (
	// CodeSandboxUnknownScenario: an X-Sandbox-Scenario value that is not in the
	// catalogue, or not honoured by the route. Gap G-06 (docs/spec-gaps.md).
	CodeSandboxUnknownScenario Code = "SANDBOX_UNKNOWN_SCENARIO"
	// CodeNotFound: a route or resource that does not exist.
	CodeNotFound Code = "NOT_FOUND"
	// CodeUnauthorized: the bearer token is missing, invalid or expired (minimal shape).
	CodeUnauthorized Code = "UNAUTHORIZED"
	// CodeInvalidRequest: a request to a minimal-shape route or the control plane is invalid.
	CodeInvalidRequest Code = "INVALID_REQUEST"
	// CodeNotImplemented: the route exists in the spec but this version does not serve it yet.
	CodeNotImplemented Code = "NOT_IMPLEMENTED"
	// CodeInternal: an unexpected failure; details are logged under the errorId.
	CodeInternal Code = "INTERNAL"
	// CodeAdminTokenRequired: the control plane needs X-Sandbox-Admin-Token.
	CodeAdminTokenRequired Code = "ADMIN_TOKEN_REQUIRED"
)

// Settlement failure codes carried by the CashOut webhook when status is ERROR.
// Spec "Resources > Cash-out webhook payload", errorCode table.
const (
	CodeTaxIDMismatch     Code = "TAX_ID_MISMATCH"
	CodeInvalidTaxID      Code = "INVALID_TAX_ID"
	CodeBlockedAccount    Code = "BLOCKED_ACCOUNT"
	CodeAccountClosed     Code = "ACCOUNT_CLOSED"
	CodeOrderRejected     Code = "ORDER_REJECTED"
	CodePaymentExpired    Code = "PAYMENT_EXPIRED"
	CodeSettlementTimeout Code = "SETTLEMENT_TIMEOUT"
)

// Codes of the Central Bank-compatible routes. The spec shows no machine-readable
// codes there (their error shape is minimal), so these name the conditions of
// spec "Errors > Central Bank-compatible routes" for logs, scenarios and tests.
const (
	CodeDictKeyNotFound          Code = "DICT_KEY_NOT_FOUND"         // 422 key not found in DICT
	CodeIspbDenied               Code = "ISPB_DENIED"                // 422 the key's institution is in ispbDeny
	CodeIdempotencyKeyMissing    Code = "IDEMPOTENCY_KEY_MISSING"    // 400 x-idempotency-key absent or not UUID v4
	CodeIdempotencyKeyConflict   Code = "IDEMPOTENCY_KEY_CONFLICT"   // 422 same key, different request (Gap G-22)
	CodeTransactionNotSettleable Code = "TRANSACTION_NOT_SETTLEABLE" // control plane: not PENDING
	CodeRefundNotAReceipt        Code = "REFUND_NOT_A_RECEIPT"       // 404 the transaction is not a receipt
	CodeRefundExceedsBalance     Code = "REFUND_EXCEEDS_BALANCE"     // 400 value exceeds the refundable balance
	CodeRefundDeadlineExpired    Code = "REFUND_DEADLINE_EXPIRED"    // 422 (400 on refund-in) more than 89 days
	CodeRefundIDConflict         Code = "REFUND_ID_CONFLICT"         // 400 the id was used with another valor
	CodeRateLimited              Code = "RATE_LIMITED"               // 429
)

// AllCodes lists every code, for exhaustiveness tests.
var AllCodes = []Code{
	CodePubCertHeaderMissing, CodePubCertMalformedPEM, CodePubRequestBodyInvalid, CodePubCertNotYetValid,
	CodePubCertExpired, CodePubCertNotRegistered, CodePubInvalidCredentials, CodePubCertNotAuthorizedForAccount,
	CodePubAuthUpstreamError, CodePubAuthUpstreamUnavailable,
	CodeHTTPError, CodePixInsufficientBalance, CodePixTransactionLimitExceeded, CodePixDailyLimitExceeded,
	CodePixNightLimitExceeded, CodePixInvalidAmount, CodePixInvalidPixKey, CodePixDuplicateExternalID,
	CodeProviderExpirationBelowMinimum,
	CodeSandboxUnknownScenario, CodeNotFound, CodeUnauthorized, CodeInvalidRequest, CodeNotImplemented,
	CodeInternal, CodeAdminTokenRequired,
	CodeTaxIDMismatch, CodeInvalidTaxID, CodeBlockedAccount, CodeAccountClosed, CodeOrderRejected,
	CodePaymentExpired, CodeSettlementTimeout,
	CodeDictKeyNotFound, CodeIspbDenied, CodeIdempotencyKeyMissing, CodeIdempotencyKeyConflict,
	CodeTransactionNotSettleable, CodeRefundNotAReceipt, CodeRefundExceedsBalance, CodeRefundDeadlineExpired,
	CodeRefundIDConflict, CodeRateLimited,
}
