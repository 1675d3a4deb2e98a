// Package simulator is the application core of pixsandbox: each operation of the
// PIX API is one method that reads the simulation clock once, applies the spec's
// rules, and writes state, ledger movements and future jobs in one store
// transaction before it returns.
//
// It may import simulator/pix, simulator/ledger, simulator/clock,
// simulator/agenda, simulator/storage and scenarios; never HTTP or Badger.
package simulator
