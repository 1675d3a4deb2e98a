package conformance

import (
	"github.com/pixsandbox/pixsandbox/conformance/framework"
)

// RealServiceLabels is the label filter for a target that is not a sandbox:
// the specification's own checks, none of the control plane's or of the
// sandbox's choices where the specification says "not shown".
const RealServiceLabels = "spec && !sandbox && !sandbox-choice"

// The specification's routes, error tables and state tables, each with the
// checks that check it (a pattern over the checks' full text, as listed in
// testdata/checks.txt). A run reports every item as checked, failed, skipped
// or not checked (framework.BuildCoverage). TestCoverage keeps this list equal
// to the specification's tables and makes sure every pattern matches a check.
func init() {
	framework.RegisterCoverage(coverageItems...)
}

func route(name, checks string) framework.CoverageItem {
	return framework.CoverageItem{Kind: framework.KindRoute, Name: name, Section: "Endpoints > " + name, Checks: framework.Pattern(checks)}
}

func code(section, name, checks string) framework.CoverageItem {
	return framework.CoverageItem{Kind: framework.KindErrorCode, Name: name, Section: section, Checks: framework.Pattern(checks)}
}

func transition(section, name, checks string) framework.CoverageItem {
	return framework.CoverageItem{Kind: framework.KindTransition, Name: name, Section: section, Checks: framework.Pattern(checks)}
}

const (
	secToken    = "Errors > Token endpoint codes"
	secCashOut  = "Errors > Cash-out and cash-in codes"
	secBacen    = "Errors > Central Bank-compatible routes"
	secWebhook  = "Resources > Cash-out webhook payload (errorCode)"
	secStCash   = "States and transitions > Cash-out transaction"
	secStCashIn = "States and transitions > Cash-in charge"
	secStRefund = "States and transitions > Refund (devolucao)"
	secStCob    = "States and transitions > Immediate charge (cob)"
)

var coverageItems = []framework.CoverageItem{
	// Endpoints: a route is checked by the checks of its own container (and,
	// for the protected ones, the 401 checks name it too).
	route("POST /api/auth/token", `^POST /api/auth/token `),
	route("GET /accounts/balances", `^GET /accounts/balances `),
	route("GET /balance", `^GET /balance and GET /api/balance GET /balance `),
	route("GET /api/balance", `^GET /balance and GET /api/balance GET /api/balance `),
	route("POST /dict/pix", `^POST /dict/pix `),
	route("POST /api/pix/cash-out", `^POST /api/pix/cash-out `),
	route("POST /api/pix/cash-in", `^POST /api/pix/cash-in `),
	route("PUT /cob/{txid}", `^PUT /cob/\{txid\} `),
	route("PUT /pix/{e2eid}/devolucao/{id}", `^PUT /pix/\{e2eid\}/devolucao/\{id\} `),
	route("POST /api/pix/refund-in/{id}", `^POST /api/pix/refund-in/\{id\} `),
	route("GET /api/med", `^GET /api/med `),
	route("GET /api/pix/transactions/pix-key/{pixKey}", `^GET /api/pix/transactions/pix-key/\{pixKey\} `),
	route("GET /api/transactions", `^GET /api/transactions `),
	route("POST /api/webhooks", `^POST /api/webhooks `),
	route("GET /api/webhooks", `^GET /api/webhooks `),
	route("POST /api/resend-webhook/{transactionIdentifier}", `^POST /api/resend-webhook/\{transactionIdentifier\} `),

	// Token endpoint codes.
	code(secToken, "400 PUB_CERT_HEADER_MISSING", `^POST /api/auth/token .*400 PUB_CERT_HEADER_MISSING`),
	code(secToken, "400 PUB_CERT_MALFORMED_PEM", `^POST /api/auth/token .*400 PUB_CERT_MALFORMED_PEM`),
	code(secToken, "400 PUB_REQUEST_BODY_INVALID", `^POST /api/auth/token .*400 PUB_REQUEST_BODY_INVALID`),
	code(secToken, "401 PUB_CERT_NOT_YET_VALID", `^POST /api/auth/token .*401 PUB_CERT_NOT_YET_VALID`),
	code(secToken, "401 PUB_CERT_EXPIRED", `^POST /api/auth/token .*401 PUB_CERT_EXPIRED`),
	code(secToken, "401 PUB_CERT_NOT_REGISTERED", `^POST /api/auth/token .*401 PUB_CERT_NOT_REGISTERED`),
	code(secToken, "401 PUB_INVALID_CREDENTIALS", `^POST /api/auth/token .*401 PUB_INVALID_CREDENTIALS`),
	code(secToken, "403 PUB_CERT_NOT_AUTHORIZED_FOR_ACCOUNT", `^POST /api/auth/token .*403 PUB_CERT_NOT_AUTHORIZED_FOR_ACCOUNT`),
	code(secToken, "502 PUB_AUTH_UPSTREAM_ERROR", `^POST /api/auth/token .*502 PUB_AUTH_UPSTREAM_ERROR`),
	code(secToken, "503 PUB_AUTH_UPSTREAM_UNAVAILABLE", `^POST /api/auth/token .*503 PUB_AUTH_UPSTREAM_UNAVAILABLE`),

	// Cash-out and cash-in codes.
	code(secCashOut, "400 HTTP_ERROR (body validation)", `^POST /api/pix/cash-(out|in) rejects a body that breaks a .*rule with 400 HTTP_ERROR`),
	code(secCashOut, "400 PIX_INSUFFICIENT_BALANCE", `^POST /api/pix/cash-out .*400 PIX_INSUFFICIENT_BALANCE`),
	code(secCashOut, "400 PIX_TRANSACTION_LIMIT_EXCEEDED", `^POST /api/pix/cash-out .*400 PIX_TRANSACTION_LIMIT_EXCEEDED`),
	code(secCashOut, "400 PIX_DAILY_LIMIT_EXCEEDED", `^POST /api/pix/cash-out .*400 PIX_DAILY_LIMIT_EXCEEDED`),
	code(secCashOut, "400 PIX_NIGHT_LIMIT_EXCEEDED", `^POST /api/pix/cash-out .*400 PIX_NIGHT_LIMIT_EXCEEDED`),
	code(secCashOut, "400 PIX_INVALID_AMOUNT", `^POST /api/pix/cash-(out|in) .*400 PIX_INVALID_AMOUNT`),
	code(secCashOut, "400 PIX_INVALID_PIX_KEY", `^POST /api/pix/cash-out .*400 PIX_INVALID_PIX_KEY`),
	code(secCashOut, "400 PIX_DUPLICATE_EXTERNAL_ID", `^POST /api/pix/cash-(out|in) .*400 PIX_DUPLICATE_EXTERNAL_ID`),
	code(secCashOut, "400 PROVIDER_EXPIRATION_BELOW_MINIMUM", `^POST /api/pix/cash-in .*400 PROVIDER_EXPIRATION_BELOW_MINIMUM`),
	code(secCashOut, "401 HTTP_ERROR (token missing, expired or invalid)", `^Protected routes answer 401 .*POST /api/pix/cash-(out|in)`),
	code(secCashOut, "500 HTTP_ERROR (provider unreachable on cash-in)", `^POST /api/pix/cash-in .*500 HTTP_ERROR`),

	// Central Bank-compatible routes.
	code(secBacen, "POST /dict/pix 400 invalid key", `^POST /dict/pix rejects with 400 a body with a pixKey of no key form`),
	code(secBacen, "POST /dict/pix 400 invalid value (more than 2 decimals)", `^POST /dict/pix rejects with 400 a body with payment.amount of 3 decimals`),
	code(secBacen, "POST /dict/pix 400 missing idempotency key", `^POST /dict/pix rejects a request without x-idempotency-key with 400`),
	code(secBacen, "POST /dict/pix 401 invalid token", `^Protected routes answer 401 .*POST /dict/pix`),
	code(secBacen, "POST /dict/pix 422 key not found in DICT", `^POST /dict/pix rejects a key not found in DICT with 422`),
	code(secBacen, "POST /dict/pix 422 insufficient balance", `^POST /dict/pix rejects an amount above the available balance with 422`),
	code(secBacen, "POST /dict/pix 422 ISPB blocked", `^POST /dict/pix rejects a key whose institution is listed in ispbDeny with 422`),
	code(secBacen, "PUT /cob/{txid} 400 txid outside 26..35 alphanumerics", `^PUT /cob/\{txid\} rejects with 400 \(not 404\) a txid`),
	code(secBacen, "PUT /cob/{txid} 400 invalid CPF or CNPJ", `^PUT /cob/\{txid\} rejects with 400 a body with a devedor\.cpf`),
	code(secBacen, "PUT /cob/{txid} 400 invalid value", `^PUT /cob/\{txid\} rejects with 400 a body with valor\.original`),
	code(secBacen, "PUT /cob/{txid} 401 invalid token", `^Protected routes answer 401 .*PUT /cob/\{txid\}`),
	code(secBacen, "PUT /cob/{txid} 409 txid already exists", `^PUT /cob/\{txid\} rejects a txid that already exists with 409`),
	code(secBacen, "PUT refund 400 invalid value", `^PUT /pix/\{e2eid\}/devolucao/\{id\} rejects with 400 a body with valor`),
	code(secBacen, "PUT refund 400 value exceeds the refundable balance", `^PUT /pix/\{e2eid\}/devolucao/\{id\} accepts refunds up to exactly the PIX's amount and refuses one centavo more with 400`),
	code(secBacen, "PUT refund 404 original transaction not found", `^PUT /pix/\{e2eid\}/devolucao/\{id\} rejects an e2eid that names no PIX with 404`),
	code(secBacen, "PUT refund 404 transaction is not a receipt", `^PUT /pix/\{e2eid\}/devolucao/\{id\} refuses to refund a PIX the account sent with 404`),
	code(secBacen, "PUT refund 422 deadline expired", `^PUT /pix/\{e2eid\}/devolucao/\{id\} accepts a refund on day 89 and refuses one on day 90`),
	code(secBacen, "GET /accounts/balances 401", `^Protected routes answer 401 .*GET /accounts/balances`),

	// errorCode values of the CashOut webhook.
	code(secWebhook, "TAX_ID_MISMATCH", `^POST /api/pix/cash-out .*TAX_ID_MISMATCH`),
	code(secWebhook, "INVALID_TAX_ID", `^POST /api/pix/cash-out .*INVALID_TAX_ID`),
	code(secWebhook, "BLOCKED_ACCOUNT", `^POST /api/pix/cash-out .*BLOCKED_ACCOUNT`),
	code(secWebhook, "ACCOUNT_CLOSED", `^POST /api/pix/cash-out .*ACCOUNT_CLOSED`),
	code(secWebhook, "ORDER_REJECTED", `^POST /api/pix/cash-out .*ORDER_REJECTED`),
	code(secWebhook, "PAYMENT_EXPIRED", `^POST /api/pix/cash-out .*PAYMENT_EXPIRED`),
	code(secWebhook, "SETTLEMENT_TIMEOUT", `^POST /api/pix/cash-out .*SETTLEMENT_TIMEOUT`),

	// State tables.
	transition(secStCash, "(creation) → PENDING on POST /api/pix/cash-out", `^POST /api/pix/cash-out accepts a cash-out with 201, .*status PENDING`),
	transition(secStCash, "PENDING → CONFIRMED (settling bank confirms; CashOut webhook, errorCode null)", `^POST /api/pix/cash-out sends a CashOut webhook with status CONFIRMED`),
	transition(secStCash, "PENDING → ERROR (settling bank rejects; CashOut webhook with errorCode)", `^POST /api/pix/cash-out fails settlement with an ERROR webhook carrying the errorCode`),
	transition(secStCashIn, "(creation) → PENDING on POST /api/pix/cash-in", `^POST /api/pix/cash-in accepts a charge with 201, PENDING`),
	transition(secStCashIn, "PENDING → CONFIRMED (payer pays; webhook, splits)", `^POST /api/pix/cash-in confirms a charge paid by its pixCode`),
	transition(secStRefund, "(creation) → EM_PROCESSAMENTO on PUT /pix/{e2eid}/devolucao/{id}", `^PUT /pix/\{e2eid\}/devolucao/\{id\} holds the amount in blocked while the refund is processed`),
	transition(secStRefund, "EM_PROCESSAMENTO → DEVOLVIDO (REFUND webhook)", `^PUT /pix/\{e2eid\}/devolucao/\{id\} settles a refund as DEVOLVIDO`),
	transition(secStRefund, "EM_PROCESSAMENTO → NAO_REALIZADO (motivo)", `^PUT /pix/\{e2eid\}/devolucao/\{id\} ends a REFUND_FAILURE refund NAO_REALIZADO with motivo`),
	transition(secStCob, "(creation) → ATIVA on PUT /cob/{txid}", `^PUT /cob/\{txid\} creates an ATIVA charge`),
	transition(secStCob, "ATIVA → CONCLUIDA (payment; RECEIVE webhook)", `^PUT /cob/\{txid\} moves a charge paid by its txid to CONCLUIDA and sends a RECEIVE webhook`),
	transition(secStCob, "ATIVA → REMOVIDA_PELO_USUARIO_RECEBEDOR (cancelled by the receiver)", `^PUT /cob/\{txid\} removes an ATIVA charge with PATCH status REMOVIDA_PELO_USUARIO_RECEBEDOR`),
	transition(secStCob, "ATIVA → REMOVIDA_PELO_PSP (expired or removed by the provider)", `^PUT /cob/\{txid\} moves a charge to REMOVIDA_PELO_PSP at criacao \+ expiracao`),
}
