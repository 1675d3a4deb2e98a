// Package refund runs refunds of received PIX inside store transactions: the
// sum rule (the running total of refs.RefundedCounter), the hold, the
// refund's REFUND_IN transaction, its settlement job (DEVOLVIDO, or
// NAO_REALIZADO by scenario or when the account cannot cover it), the
// REFUND_OUT a sandbox payer receives, and the REFUND webhooks. The core's
// CreateRefund and the MED process both start refunds here.
//
// Its slice of the store (Tx): transactions, refunds, the refunded counters,
// the ledger, the transaction sequence, the settlement jobs, the payer's
// account, and the webhook outbox (outbox.Outbox).
package refund
