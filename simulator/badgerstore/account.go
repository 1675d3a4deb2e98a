package badgerstore

import (
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecodec"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
)

// balanceRecord is an account's stored balance and the sequence of the last
// journal entry applied to it.
type balanceRecord struct {
	Available pix.Cents `json:"available"`
	Blocked   pix.Cents `json:"blocked"`
	Seq       uint64    `json:"seq"`
}

// Account returns an account.
func (t *Tx) Account(id pix.AccountID) (pix.Account, error) {
	var a pix.Account
	err := mustGetCached(t, accountKey(id), &a, cloneAccount)
	return a, err
}

// PutAccount creates or replaces an account; a new account gets a zero balance.
func (t *Tx) PutAccount(a pix.Account) error {
	if err := t.put(accountKey(a.ID), a); err != nil {
		return err
	}
	var rec balanceRecord
	ok, err := t.get(balanceKey(a.ID), &rec)
	if err != nil || ok {
		return err
	}
	return t.put(balanceKey(a.ID), rec)
}

// Accounts returns every account in id order.
func (t *Tx) Accounts() ([]pix.Account, error) {
	var out []pix.Account
	err := t.scan([]byte(prefixAccount), func(_, val []byte) (bool, error) {
		var a pix.Account
		if err := storecodec.Decode(val, &a); err != nil {
			return true, err
		}
		out = append(out, a)
		return false, nil
	})
	return out, err
}

// NextAccountID returns an unused account id, at least min, from a counter.
func (t *Tx) NextAccountID(min pix.AccountID) (pix.AccountID, error) {
	var next pix.AccountID
	if _, err := t.get([]byte(keyAccountSeq), &next); err != nil {
		return 0, err
	}
	if next < min {
		next = min
	}
	for {
		ok, err := t.get(accountKey(next), new(pix.Account))
		if err != nil {
			return 0, err
		}
		if !ok {
			break
		}
		next++
	}
	return next, t.put([]byte(keyAccountSeq), next+1)
}

// Balance returns an account's balance.
func (t *Tx) Balance(id pix.AccountID) (pix.Balance, error) {
	var rec balanceRecord
	if err := mustGetCached(t, balanceKey(id), &rec, same); err != nil {
		return pix.Balance{}, err
	}
	return pix.Balance{Available: rec.Available, Blocked: rec.Blocked}, nil
}

// Move applies a ledger entry to the stored balances and journals it under every
// account it touches.
func (t *Tx) Move(e ledger.Entry) (ledger.Entry, error) {
	recs := map[pix.AccountID]*balanceRecord{}
	bals := ledger.Balances{}
	for _, p := range []ledger.Pocket{e.From, e.To} {
		if p.Bucket == ledger.World || recs[p.Account] != nil {
			continue
		}
		rec := &balanceRecord{}
		if err := mustGetCached(t, balanceKey(p.Account), rec, same); err != nil {
			return e, err
		}
		recs[p.Account] = rec
		bals[p.Account] = &pix.Balance{Available: rec.Available, Blocked: rec.Blocked}
	}
	if err := ledger.Apply(bals, e); err != nil {
		return e, err
	}
	for id, rec := range recs {
		rec.Seq++
		rec.Available, rec.Blocked = bals[id].Available, bals[id].Blocked
		entry := e
		entry.Seq = rec.Seq
		if err := t.put(journalKey(id, rec.Seq), entry); err != nil {
			return e, err
		}
		if err := t.put(balanceKey(id), rec); err != nil {
			return e, err
		}
	}
	return e, nil
}

// Journal calls fn with the account's entries in application order.
func (t *Tx) Journal(id pix.AccountID, fn func(ledger.Entry) error) error {
	return t.scan(journalPrefix(id), func(_, val []byte) (bool, error) {
		var e ledger.Entry
		if err := storecodec.Decode(val, &e); err != nil {
			return true, err
		}
		return false, fn(e)
	})
}
