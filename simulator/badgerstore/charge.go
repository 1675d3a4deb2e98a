package badgerstore

import (
	"fmt"
	"strconv"

	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecodec"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// Charge keys:
//
//	cob/<account>/<txid>              pix.Cob
//	ix/cobtxid/<txid>/<account>       (empty) — which accounts hold a txid
//	charge/<transaction>              pix.Charge (cash-in)
//	ix/chargetxid/<txid>              transaction id
//	loc/<token>                       pix.LocationRef
//	splitq/<account>/<queuedAt>/<transaction>/<index>   pix.QueuedSplit
func cobKey(a pix.AccountID, txid string) []byte {
	return []byte("cob/" + num(int64(a)) + "/" + txid)
}

// Cob returns an account's cob.
func (t *Tx) Cob(a pix.AccountID, txid string) (pix.Cob, error) {
	var c pix.Cob
	return c, t.mustGet(cobKey(a, txid), &c)
}

// PutCob creates or updates a cob.
func (t *Tx) PutCob(c pix.Cob) error {
	if err := t.put(cobKey(c.AccountID, c.TxID), c); err != nil {
		return err
	}
	return t.set([]byte("ix/cobtxid/"+c.TxID+"/"+num(int64(c.AccountID))), nil)
}

// CobAccounts returns the accounts holding a cob with this txid.
func (t *Tx) CobAccounts(txid string) ([]pix.AccountID, error) {
	prefix := []byte("ix/cobtxid/" + txid + "/")
	var out []pix.AccountID
	err := t.scan(prefix, func(key, _ []byte) (bool, error) {
		n, err := strconv.ParseInt(string(key[len(prefix):]), 10, 64)
		if err != nil {
			return true, err
		}
		out = append(out, pix.AccountID(n))
		return false, nil
	})
	return out, err
}

// Charge returns a cash-in charge.
func (t *Tx) Charge(id int64) (pix.Charge, error) {
	var c pix.Charge
	return c, t.mustGet([]byte("charge/"+num(id)), &c)
}

// PutCharge creates or updates a cash-in charge.
func (t *Tx) PutCharge(c pix.Charge) error {
	if err := t.put([]byte("charge/"+num(c.TransactionID)), c); err != nil {
		return err
	}
	return t.put([]byte("ix/chargetxid/"+c.TxID), c.TransactionID)
}

// ChargeByTxID returns a cash-in charge by txid.
func (t *Tx) ChargeByTxID(txid string) (pix.Charge, error) {
	var id int64
	if err := t.mustGet([]byte("ix/chargetxid/"+txid), &id); err != nil {
		return pix.Charge{}, err
	}
	return t.Charge(id)
}

// Location resolves a BR Code location token.
func (t *Tx) Location(token string) (pix.LocationRef, error) {
	var r pix.LocationRef
	return r, t.mustGet([]byte("loc/"+token), &r)
}

// PutLocation stores a BR Code location token.
func (t *Tx) PutLocation(token string, r pix.LocationRef) error {
	return t.put([]byte("loc/"+token), r)
}

func splitQueueKey(a pix.AccountID, q pix.QueuedSplit) []byte {
	return []byte(fmt.Sprintf("splitq/%s/%s/%s/%03d", num(int64(a)), num(q.QueuedAt.UnixNano()), num(q.ChargeTransactionID), q.Index))
}

// QueuedSplits returns an account's queued splits, oldest first.
func (t *Tx) QueuedSplits(a pix.AccountID) ([]pix.QueuedSplit, error) {
	var out []pix.QueuedSplit
	err := t.scan([]byte("splitq/"+num(int64(a))+"/"), func(_, val []byte) (bool, error) {
		var q pix.QueuedSplit
		if err := storecodec.Decode(val, &q); err != nil {
			return true, err
		}
		out = append(out, q)
		return false, nil
	})
	return out, err
}

// PutQueuedSplit queues a split.
func (t *Tx) PutQueuedSplit(a pix.AccountID, q pix.QueuedSplit) error {
	return t.put(splitQueueKey(a, q), q)
}

// DeleteQueuedSplit removes a queued split.
func (t *Tx) DeleteQueuedSplit(a pix.AccountID, q pix.QueuedSplit) error {
	return t.del(splitQueueKey(a, q))
}
