// Package ledger moves money. It is the only way a balance changes: every movement
// is an Entry that takes an amount from one pocket and puts it in another, so money
// is never created or destroyed (the World pocket stands for everything outside the
// sandbox). It enforces that no account pocket goes below zero (overdraft is 0,
// spec "Resources > Balance").
//
// The package is pure: no clock, no I/O.
// Callers load the balances an entry touches, Apply it, and store the balances and
// the entry in one store transaction.
package ledger
