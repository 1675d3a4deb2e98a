// Package seed writes what a new data dir starts with, from the fixtures:
// the participants (Banks), the accounts with their credentials, opening
// balances, certificates and webhook targets (Accounts), and the DICT
// directory with the keys of every sandbox account (Dict); and it draws the
// fake accounts the control plane creates (Fake). Each writer runs inside a
// store transaction and writes once per data dir.
//
// Its slice of the store (Tx): accounts, credentials and certificates,
// opening balances through the ledger, webhook targets and their sequence,
// the DICT directory, and the metadata marks that make each writer run once.
package seed
