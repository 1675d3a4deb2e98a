package badgerstore

import (
	"bytes"
	"errors"

	"github.com/dgraph-io/badger/v4"

	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecache"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecodec"
)

// The recent cache (storecache.Recent, Store.recent) keeps the stored bytes
// of the kinds below as their batches wrote them: a settlement reads back the
// transaction and the job its cash-out wrote two seconds before, by which
// time under load they have left the memtable. Tx.set and Tx.del report every
// write of these kinds (markRecent) and the writer applies them once the
// batch commits (storecache.Recent.Commit); Tx.get and the job reads consult
// it (getRecent), and transaction reads also keep what they decoded and what
// they read on a miss (getDecoded). In a test binary every hit is checked
// against Badger.

// recentKind reports whether key is of a kind the recent cache keeps:
// transactions, pending jobs and the jobs' id index.
func recentKind(key []byte) bool {
	return bytes.HasPrefix(key, []byte(prefixTx)) || bytes.HasPrefix(key, []byte(prefixJob)) ||
		bytes.HasPrefix(key, []byte(prefixJobID))
}

// markRecent tells the recent cache that this batch's commit writes w.Key
// (the full key of the workspace's key), and keeps the write for it.
func (t *Tx) markRecent(key []byte, w storecache.Write) {
	if recentKind(key) {
		t.store.recent.Wrote(w.Key, t.at+1)
		t.recentWrites = append(t.recentWrites, w)
	}
}

// getRecent reads the stored bytes of a key of a recent kind, from the cache
// when it has them. They must not be changed.
func (t *Tx) getRecent(key []byte) (val []byte, found bool, err error) {
	if val, _, found, ok := t.store.recent.Lookup(t.full(key), t.at); ok {
		if checkInTests() {
			err = verifyHit(key, found, val, func(v *[]byte) (bool, error) { return t.getBytes(key, v) })
		}
		return val, found, err
	}
	found, err = t.getBytes(key, &val)
	return val, found, err
}

// getBytes reads the stored bytes of key from Badger.
func (t *Tx) getBytes(key []byte, v *[]byte) (bool, error) {
	item, err := t.txn.Get(t.full(key))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	*v, err = item.ValueCopy(nil)
	return true, err
}

// getDecoded is get for a key of a recent kind whose records hold no
// references (a pix.Transaction): the first reader of a cached version keeps
// what it decoded for the readers after it, and a reader that missed stores
// what it read and decoded (storecache.Recent.Stored), so a listing of recent
// transactions, or a page read again and again, decodes each version once.
// v must point to a zero T.
func getDecoded[T any](t *Tx, key []byte, v *T) (bool, error) {
	full := t.full(key)
	val, dec, found, ok := t.store.recent.Lookup(full, t.at)
	switch {
	case !ok:
		found, err := t.getBytes(key, &val)
		if err != nil || !found {
			return false, err
		}
		if err := storecodec.Decode(val, v); err != nil {
			return false, err
		}
		t.store.recent.Stored(full, t.at, val, *v)
		return true, nil
	case !found:
	case dec != nil:
		*v = dec.(T)
	default:
		if err := storecodec.Decode(val, v); err != nil {
			return false, err
		}
		t.store.recent.Decoded(full, val, *v)
	}
	if checkInTests() {
		err := verifyHit(key, found, *v, func(w *T) (bool, error) {
			var b []byte
			found, err := t.getBytes(key, &b)
			if err != nil || !found {
				return found, err
			}
			return true, storecodec.Decode(b, w)
		})
		if err != nil {
			return false, err
		}
	}
	return found, nil
}
