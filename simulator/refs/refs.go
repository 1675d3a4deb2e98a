// Package refs names what the core writes into the store for other readers to
// find again: the cause of each journal entry (Ref, MEDRef, OpeningBalance,
// read back by Parse) and the running total refunded of a received PIX
// (RefundedCounter). The core writes them; simulator/invariants reads them.
// Quote words a reference a client supplied for a message; NotFound answers
// one that names no record.
package refs

import (
	"errors"
	"strconv"
	"strings"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// OpeningBalance is the cause of an account's opening balance.
const OpeningBalance = "opening-balance"

// MEDKind is the kind part of the cause of a MED's own movements.
const MEDKind = "med"

// Ref is the cause of a movement made for transaction t: "<KIND>:<id>:<what>".
func Ref(t pix.Transaction, what string) string {
	return string(t.Kind) + ":" + strconv.FormatInt(t.ID, 10) + ":" + what
}

// MEDRef is the cause of a movement of MED id's block: "med:<id>:<what>".
func MEDRef(id int64, what string) string {
	return MEDKind + ":" + strconv.FormatInt(id, 10) + ":" + what
}

// Parse splits a cause written by Ref or MEDRef into its kind, number and
// what; ok is false when it names no number.
func Parse(ref string) (kind string, n int64, what string, ok bool) {
	kind, rest, _ := strings.Cut(ref, ":")
	num, what, _ := strings.Cut(rest, ":")
	n, err := strconv.ParseInt(num, 10, 64)
	return kind, n, what, err == nil
}

// RefundedCounter is the running total refunded of the received PIX original.
// Every refund of the PIX reads and writes it in its transaction; the store
// applies transactions one after another, so each refund sees the amounts of
// those before it: the sum rule holds under concurrency.
func RefundedCounter(original int64) string { return "refunded/" + strconv.FormatInt(original, 10) }

// Quote quotes a reference a client supplied (an id, a key, a txid) for a
// message: short and printable.
func Quote(v string) string { return strconv.Quote(pix.Clip(v, 80)) }

// NotFound maps storage.ErrNotFound, the answer when a reference names no
// record, to a pix error of KindNotFound with the message; other errors pass.
func NotFound(err error, format string, args ...any) error {
	if errors.Is(err, storage.ErrNotFound) {
		return pix.Errorf(pix.KindNotFound, pix.CodeNotFound, format, args...)
	}
	return err
}
