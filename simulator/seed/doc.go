// Package seed writes what a new data dir starts with, from the fixtures:
// the participants (Banks), the accounts with their credentials, opening
// balances, certificates and webhook targets (Accounts), and the DICT
// directory with the keys of every sandbox account (Dict); and it draws the
// fake accounts the control plane creates (Fake). Each writer runs inside a
// store transaction and writes once per data dir.
package seed
