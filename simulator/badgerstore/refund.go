package badgerstore

import (
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecodec"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Refund and MED keys:
//
//	refund/<original>/<requestedAt>/<id>     pix.Refund — one PIX's refunds in request order
//	ix/refundid/<original>/<id>              the refund's key
//	ix/refundtx/<transaction>                the refund's key, by its REFUND_IN transaction
//	med/<id>                                 pix.MED
//	ix/medacct/<account>/<createdAt>/<id>    (empty) — an account's MEDs in creation order

// TransactionByE2E returns an account's transaction by end-to-end id.
func (t *Tx) TransactionByE2E(a pix.AccountID, e2e string) (pix.Transaction, error) {
	return t.transactionByIndex(txE2EKey(a, e2e))
}

func refundKey(r pix.Refund) []byte {
	return []byte("refund/" + num(r.OriginalTransactionID) + "/" + num(r.RequestedAt.UnixNano()) + "/" + r.ID)
}

// Refund returns a refund of an original transaction by id.
func (t *Tx) Refund(original int64, id string) (pix.Refund, error) {
	var key []byte
	if err := t.mustGet([]byte("ix/refundid/"+num(original)+"/"+id), &key); err != nil {
		return pix.Refund{}, err
	}
	var r pix.Refund
	return r, t.mustGet(key, &r)
}

// PutRefund creates or updates a refund.
func (t *Tx) PutRefund(r pix.Refund) error {
	key := refundKey(r)
	if err := t.put(key, r); err != nil {
		return err
	}
	if err := t.put([]byte("ix/refundid/"+num(r.OriginalTransactionID)+"/"+r.ID), key); err != nil {
		return err
	}
	if r.TransactionID != 0 {
		return t.put([]byte("ix/refundtx/"+num(r.TransactionID)), key)
	}
	return nil
}

// Refunds returns every refund of an original transaction in request order.
func (t *Tx) Refunds(original int64) ([]pix.Refund, error) {
	var out []pix.Refund
	err := t.scan([]byte("refund/"+num(original)+"/"), func(_, val []byte) (bool, error) {
		var r pix.Refund
		if err := storecodec.Decode(val, &r); err != nil {
			return true, err
		}
		out = append(out, r)
		return false, nil
	})
	return out, err
}

// RefundByTransaction returns a refund by its REFUND_IN transaction.
func (t *Tx) RefundByTransaction(id int64) (pix.Refund, error) {
	var key []byte
	if err := t.mustGet([]byte("ix/refundtx/"+num(id)), &key); err != nil {
		return pix.Refund{}, err
	}
	var r pix.Refund
	return r, t.mustGet(key, &r)
}

// MED returns a MED record.
func (t *Tx) MED(id int64) (pix.MED, error) {
	var m pix.MED
	return m, t.mustGet([]byte("med/"+num(id)), &m)
}

// PutMED creates or updates a MED record.
func (t *Tx) PutMED(m pix.MED) error {
	if err := t.put([]byte("med/"+num(m.ID)), m); err != nil {
		return err
	}
	return t.set([]byte("ix/medacct/"+num(int64(m.AccountID))+"/"+num(m.CreatedAt.UnixNano())+"/"+num(m.ID)), nil)
}

// MEDs calls fn with an account's MEDs in creation order until fn returns false.
func (t *Tx) MEDs(a pix.AccountID, fn func(pix.MED) bool) error {
	prefix := []byte("ix/medacct/" + num(int64(a)) + "/")
	return t.scan(prefix, func(key, _ []byte) (bool, error) {
		m, err := t.MED(parseTrailingNum(key))
		if err != nil {
			return true, err
		}
		return !fn(m), nil
	})
}

// parseTrailingNum reads the zero-padded number that ends a key (0 when the
// key ends in none: no record has id 0).
func parseTrailingNum(key []byte) int64 {
	n, _ := parseNum(key[max(0, len(key)-numWidth):])
	return n
}
