package badgerstore

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/dgraph-io/badger/v4"

	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecodec"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// Transaction keys:
//
//	tx/<id>                            pix.Transaction
//	ix/txuuid/<uuid>                   id
//	ix/txext/<account>/<externalId>    id
//	ix/txe2e/<account>/<endToEndId>    id (both sides of a PIX between sandbox accounts share it)
//	ix/txacct/<account>/<createdAt>/<id>   (empty) — the account's history in time order
func txKey(id int64) []byte                     { return []byte(prefixTx + num(id)) }
func txUUIDKey(u string) []byte                 { return []byte("ix/txuuid/" + strings.ToLower(u)) }
func txE2EKey(a pix.AccountID, e string) []byte { return []byte("ix/txe2e/" + num(int64(a)) + "/" + e) }
func txExtKey(a pix.AccountID, ext string) []byte {
	return []byte("ix/txext/" + num(int64(a)) + "/" + ext)
}
func txAcctKey(t pix.Transaction) []byte {
	return append(acctIndexPrefix(t.AccountID), num(t.CreatedAt.UnixNano())+"/"+num(t.ID)...)
}

// sequenceLease is how many numbers Badger leases at a time. A lease is a
// synced commit of its own, made on the writer's goroutine, so it is large:
// one per thousand numbers. A crash leaves the rest of the lease as a gap.
const sequenceLease = 1000

// sequences hands out numbers of named sequences without transaction conflicts
// (Badger leases them in blocks; a crash leaves a gap).
type sequences struct {
	mu   sync.Mutex
	db   *badger.DB
	seqs map[string]*badger.Sequence
}

// next draws the next number of sequence name of the workspace whose key
// prefix is pre.
func (s *sequences) next(pre []byte, name string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := string(pre) + "meta/seq/" + name
	seq, ok := s.seqs[key]
	if !ok {
		var err error
		if seq, err = s.db.GetSequence([]byte(key), sequenceLease); err != nil {
			return 0, err
		}
		s.seqs[key] = seq
	}
	for {
		n, err := seq.Next()
		if err != nil {
			return 0, err
		}
		if n > 0 { // 0 is never an id
			return int64(n), nil
		}
	}
}

// releasePrefix returns the unused numbers of the sequences of the workspace
// whose key prefix is pre (every workspace's when pre is empty: the
// default's keys have no prefix, and a release only leaves a gap).
func (s *sequences) releasePrefix(pre []byte) error {
	if len(pre) == 0 {
		return s.release()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for key, seq := range s.seqs {
		if strings.HasPrefix(key, string(pre)) {
			if err := seq.Release(); err != nil && first == nil {
				first = err
			}
			delete(s.seqs, key)
		}
	}
	return first
}

func (s *sequences) release() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for _, seq := range s.seqs {
		if err := seq.Release(); err != nil && first == nil {
			first = err
		}
	}
	s.seqs = map[string]*badger.Sequence{}
	return first
}

// NextID returns the next number of a named sequence. A number of the
// "transaction" sequence is new to the store (sequence numbers are never
// handed out twice), so PutTransaction does not look for a version of it to
// replace: that lookup misses through every level of the LSM tree.
func (t *Tx) NextID(sequence string) (int64, error) {
	id, err := t.store.seqs.next(t.store.pre, sequence)
	if err == nil && sequence == "transaction" {
		if t.newTxs == nil {
			t.newTxs = make(map[txRef]bool)
		}
		t.newTxs[t.txRef(id)] = true
	}
	return id, err
}

// txRef names a transaction in a batch that serves several workspaces, each
// with its own transaction numbers.
type txRef struct {
	store *Store
	id    int64
}

func (t *Tx) txRef(id int64) txRef { return txRef{t.store, id} }

// Transaction returns a transaction by id.
func (t *Tx) Transaction(id int64) (pix.Transaction, error) {
	if tx, ok := t.txs[t.txRef(id)]; ok {
		return tx, nil
	}
	var tx pix.Transaction
	found, err := getDecoded(t, txKey(id), &tx)
	if err == nil && !found {
		err = storage.ErrNotFound
	}
	if err != nil {
		return tx, err
	}
	t.remember(tx)
	return tx, nil
}

// remember keeps tx decoded for the rest of the transaction: an operation
// that reads a transaction and then writes it (a settlement) decodes it once,
// and PutTransaction finds the version it replaces without reading it again.
// pix.Transaction holds no references, so a copy is never shared. Every write
// of a transaction record goes through PutTransaction, which remembers what it
// wrote; a Tx that is discarded takes its memory with it.
func (t *Tx) remember(tx pix.Transaction) {
	if t.txs == nil {
		t.txs = make(map[txRef]pix.Transaction)
	}
	t.txs[t.txRef(tx.ID)] = tx
}

func (t *Tx) transactionByIndex(key []byte) (pix.Transaction, error) {
	var id int64
	if err := t.mustGet(key, &id); err != nil {
		return pix.Transaction{}, err
	}
	return t.Transaction(id)
}

// TransactionByUUID returns a transaction by UUID.
func (t *Tx) TransactionByUUID(u string) (pix.Transaction, error) {
	return t.transactionByIndex(txUUIDKey(u))
}

// TransactionByExternalID returns an account's transaction by externalId.
func (t *Tx) TransactionByExternalID(a pix.AccountID, ext string) (pix.Transaction, error) {
	return t.transactionByIndex(txExtKey(a, ext))
}

// PutTransaction writes a transaction and its indexes in this transaction.
func (t *Tx) PutTransaction(tx pix.Transaction) error {
	if tx.ID <= 0 || tx.AccountID <= 0 {
		return fmt.Errorf("store: transaction needs an id and an account (%d, %d)", tx.ID, tx.AccountID)
	}
	prev, existed := t.txs[t.txRef(tx.ID)]
	if !existed && !t.newTxs[t.txRef(tx.ID)] {
		var err error
		if existed, err = t.get(txKey(tx.ID), &prev); err != nil {
			return err
		}
	}
	if err := t.put(txKey(tx.ID), storecodec.Tx(tx)); err != nil {
		return err
	}
	t.remember(tx)
	t.tallyTransaction(prev, tx, existed)
	id := []byte(strconv.FormatInt(tx.ID, 10))
	if !existed {
		if err := t.indexTransaction(tx); err != nil {
			return err
		}
		if tx.UUID != "" {
			if err := t.set(txUUIDKey(tx.UUID), id); err != nil {
				return err
			}
		}
		if tx.ExternalID != "" {
			if err := t.set(txExtKey(tx.AccountID, tx.ExternalID), id); err != nil {
				return err
			}
		}
	}
	if existed && prev.Status != tx.Status {
		if err := t.recount(prev, tx); err != nil {
			return err
		}
	}
	if tx.EndToEndID != "" && tx.EndToEndID != prev.EndToEndID {
		return t.set(txE2EKey(tx.AccountID, tx.EndToEndID), id)
	}
	return nil
}

// indexTransaction writes a new transaction's listing indexes: its place in
// the account's and the PIX key's time order, and its count buckets.
func (t *Tx) indexTransaction(tx pix.Transaction) error {
	if err := t.count(tx, 1); err != nil {
		return err
	}
	if tx.PixKey != "" {
		if err := t.set(txKeyIndex(tx), nil); err != nil {
			return err
		}
	}
	return t.set(txAcctKey(tx), nil)
}

// Idempotency returns the record of an account's idempotency key.
func (t *Tx) Idempotency(a pix.AccountID, key string) (storage.IdempotencyRecord, error) {
	var r storage.IdempotencyRecord
	return r, t.mustGet(idemKey(a, key), &r)
}

// PutIdempotency stores the record of an idempotency key.
func (t *Tx) PutIdempotency(a pix.AccountID, key string, r storage.IdempotencyRecord) error {
	return t.put(idemKey(a, key), r)
}

func idemKey(a pix.AccountID, key string) []byte {
	return []byte("idem/" + num(int64(a)) + "/" + strings.ToLower(key))
}

// DictEntry returns the DICT entry of a key.
func (t *Tx) DictEntry(key string) (pix.DictEntry, error) {
	var e pix.DictEntry
	err := mustGetCached(t, dictKey(key), &e, same)
	return e, err
}

// PutDictEntry creates or replaces a DICT entry.
func (t *Tx) PutDictEntry(e pix.DictEntry) error { return t.put(dictKey(e.Key), e) }

// Settings returns an account's settings.
func (t *Tx) Settings(a pix.AccountID) (pix.Settings, bool, error) {
	var s pix.Settings
	ok, err := getCached(t, settingsKey(a), &s, same)
	return s, ok, err
}

// PutSettings stores an account's settings.
func (t *Tx) PutSettings(a pix.AccountID, s pix.Settings) error {
	return t.put(settingsKey(a), s)
}

// Counter returns a named running total.
func (t *Tx) Counter(name string) (pix.Cents, error) {
	var v pix.Cents
	_, err := t.get([]byte("ctr/"+name), &v)
	return v, err
}

// PutCounter stores a named running total.
func (t *Tx) PutCounter(name string, v pix.Cents) error { return t.put([]byte("ctr/"+name), v) }
