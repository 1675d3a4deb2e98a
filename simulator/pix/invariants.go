package pix

import "time"

// InvariantReport is the result of recomputing every balance from the ledger
// and from the transaction history.
type InvariantReport struct {
	At           time.Time
	Accounts     int
	Entries      int
	Transactions int      // transactions checked against the journal
	Refunds      int      // refunds checked against their original PIX
	Inside       Cents    // the sum of every account's available + blocked
	World        Cents    // the outside world's balance from the journals; Inside + World == 0
	Violations   []string // empty when every invariant holds
}
