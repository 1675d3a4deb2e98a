// Package state is the model of an implementation's state built from the
// exchanges that passed through the validating proxy, and the state rules
// that judge each new exchange against it.
//
// A Model keeps bounded windows (Bounds) of what earlier answers showed:
// idempotency keys, externalIds, originals and the refunds accepted against
// them, the statuses of cobs and refunds, the fields of a transaction that
// never change, each account's clock as its answers read it and, with
// QuietAccounts, its balance and the operations that may still move it.
// Observe returns the state findings a new exchange raises: a replayed key
// answered with another transfer, a duplicate externalId accepted, refunds
// above the original, a token accepted past its lifetime, a transition the
// contract does not allow, a read contradicting an earlier one, a balance
// the operations since the previous read do not explain. Hooks does the same
// for the upstream's webhook deliveries: it ties each to the transaction the
// answers showed and judges its status and its webhook-id against them.
//
// The rules of one exchange alone, the rule catalogue and the findings are
// conformance/contract's; forgetting (a window full) can only hide a state
// finding, never make one.
package state
