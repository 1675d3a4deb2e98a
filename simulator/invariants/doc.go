// Package invariants checks a store's ledger and transaction history against
// each other (GET /_sandbox/invariants, and the tests after every scenario):
// balances against their journal, conservation of money, every account's
// balance against what its transactions and MEDs say, every journal entry
// against the transaction that caused it, end-to-end ids, and the refunds of
// each received PIX. Each check is a function named for what it checks.
//
// It reads only what the store holds, tracing each journal entry to its cause
// through simulator/refs, and shares no code with the core it checks.
//
// Its slice of the store, read only: the accounts, and for each its balance
// and journal (storage.LedgerTx), transactions, MEDs, refunds and refunded
// totals.
package invariants
