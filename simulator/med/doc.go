// Package med runs the MED (Mecanismo Especial de Devolução) inside store
// transactions: opening one against a received PIX (reconciled or recorded
// only), its timeline (acknowledge and block, analysis, refund) as agenda
// jobs and as control-plane steps, the release of its block, its refund
// through simulator/refund, and its webhooks.
//
// Its slice of the store (Tx): the MED records, and what a refund touches
// (refund.Tx), which covers the rest: the account, the original PIX, the
// block through the ledger, the MED sequence, the deadline jobs and the
// webhook outbox.
package med
