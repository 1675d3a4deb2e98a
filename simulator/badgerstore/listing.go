package badgerstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// Listing keys, written in the transaction that writes the record:
//
//	ix/txacct/<account>/<createdAt>/<id>        an account's history in time order
//	ix/txkey/<account>/<pixKey>/<createdAt>/<id>  the same, for one PIX key
//	txcnt/<account>/<unit>/<n>                  counts by status × type of the
//	                                            transactions created in UTC day (d),
//	                                            hour (h) or minute (m) number n
//
// A listing reads one page of the time index, newest first, so its cost follows
// the page size. Its total adds the daily counts of the days the range covers
// whole, the hourly counts of the whole hours at its edges, the minute counts of
// the whole minutes beyond, and scans only the two partial minutes: a 31-day
// total reads at most 31 + 46 + 118 small counters and two minutes of records,
// whatever the history holds.

func txKeyIndex(t pix.Transaction) []byte {
	return []byte("ix/txkey/" + num(int64(t.AccountID)) + "/" + t.PixKey + "/" + num(t.CreatedAt.UnixNano()) + "/" + num(t.ID))
}

// countUnits are the bucket sizes, largest first.
var countUnits = []time.Duration{24 * time.Hour, time.Hour, time.Minute}

func unitName(u time.Duration) string {
	switch u {
	case 24 * time.Hour:
		return "d"
	case time.Hour:
		return "h"
	}
	return "m"
}

func countPrefix(a pix.AccountID, u time.Duration) []byte {
	return []byte("txcnt/" + num(int64(a)) + "/" + unitName(u) + "/")
}

func countKey(a pix.AccountID, u time.Duration, n int64) []byte {
	return append(countPrefix(a, u), num(n)...)
}

// bucketCounts counts transactions by status × type. It is stored as 12
// varints (the counters are read by the hundred per listing: no JSON).
type bucketCounts [3][4]int64

func (c *bucketCounts) encode() []byte {
	b := make([]byte, 0, 24)
	for _, row := range c {
		for _, n := range row {
			b = binary.AppendVarint(b, n)
		}
	}
	return b
}

func (c *bucketCounts) decode(b []byte) error {
	for i := range c {
		for j := range c[i] {
			n, k := binary.Varint(b)
			if k <= 0 {
				return fmt.Errorf("store: corrupt transaction count bucket")
			}
			c[i][j], b = n, b[k:]
		}
	}
	return nil
}

func statusIndex(s pix.TxStatus) int {
	for i, v := range pix.TxStatuses {
		if v == s {
			return i
		}
	}
	return 0
}

func typeIndex(t pix.TxType) int {
	for i, v := range pix.TxTypes {
		if v == t {
			return i
		}
	}
	return 0
}

// count adds delta to the day, hour and minute buckets of t's creation, at t's
// status and type.
func (t *Tx) count(tx pix.Transaction, delta int64) error {
	return t.countEach(tx, func(c *bucketCounts) {
		c[statusIndex(tx.Status)][typeIndex(tx.Kind.ListingType())] += delta
	})
}

// recount moves a transaction whose status changed from prev's cell of its
// counters to next's, reading and writing each counter once. The buckets are
// those of prev: a transaction keeps its account and its creation instant.
func (t *Tx) recount(prev, next pix.Transaction) error {
	if prev.AccountID != next.AccountID || !prev.CreatedAt.Equal(next.CreatedAt) {
		if err := t.count(prev, -1); err != nil {
			return err
		}
		return t.count(next, 1)
	}
	return t.countEach(prev, func(c *bucketCounts) {
		c[statusIndex(prev.Status)][typeIndex(prev.Kind.ListingType())]--
		c[statusIndex(next.Status)][typeIndex(next.Kind.ListingType())]++
	})
}

// countEach applies change to each of tx's counter buckets.
func (t *Tx) countEach(tx pix.Transaction, change func(*bucketCounts)) error {
	for _, u := range countUnits {
		key := countKey(tx.AccountID, u, tx.CreatedAt.UnixNano()/int64(u))
		var c bucketCounts
		item, err := t.txn.Get(t.full(key))
		switch {
		case err == nil:
			err = item.Value(c.decode)
		case errors.Is(err, badger.ErrKeyNotFound):
			err = nil
		}
		if err != nil {
			return err
		}
		change(&c)
		if err := t.set(key, c.encode()); err != nil {
			return err
		}
	}
	return nil
}

func (c *bucketCounts) sum(f pix.TransactionFilter) int64 {
	var n int64
	for si, s := range pix.TxStatuses {
		for ti, ty := range pix.TxTypes {
			if (f.Status == "" || f.Status == s) && (f.Type == "" || f.Type == ty) {
				n += c[si][ti]
			}
		}
	}
	return n
}

// ListTransactions returns a page of an account's transactions, newest first,
// and the total matching (capped at f.MaxResults when set).
func (t *Tx) ListTransactions(a pix.AccountID, f pix.TransactionFilter) ([]pix.Transaction, int, error) {
	skip := (f.Page - 1) * f.Size
	switch {
	case f.ExternalID != "" || f.EndToEndID != "":
		var tx pix.Transaction
		var err error
		if f.ExternalID != "" {
			tx, err = t.TransactionByExternalID(a, f.ExternalID)
		} else {
			tx, err = t.TransactionByE2E(a, f.EndToEndID)
		}
		if errors.Is(err, storage.ErrNotFound) || (err == nil && !f.Matches(tx)) {
			return nil, 0, nil
		}
		if err != nil {
			return nil, 0, err
		}
		if skip > 0 {
			return nil, 1, nil
		}
		return []pix.Transaction{tx}, 1, nil
	case f.PixKey != "":
		prefix := []byte("ix/txkey/" + num(int64(a)) + "/" + f.PixKey + "/")
		var page []pix.Transaction
		total := 0
		err := t.scanRange(prefix, f.From, f.To, true, func(tx pix.Transaction) bool {
			if !f.Matches(tx) {
				return true
			}
			total++
			if total > skip && len(page) < f.Size {
				page = append(page, tx)
			}
			return f.MaxResults <= 0 || total < f.MaxResults
		})
		if f.MaxResults > 0 && skip >= f.MaxResults {
			page = nil
		}
		return page, total, err
	}
	prefix := acctIndexPrefix(a)
	var page []pix.Transaction
	from, to, err := t.openEnds(a, f.From, f.To)
	if err != nil {
		return nil, 0, err
	}
	upper, skip, err := t.seekOffset(a, f, to, skip)
	if err != nil {
		return nil, 0, err
	}
	matched := 0
	err = t.scanRange(prefix, f.From, upper, true, func(tx pix.Transaction) bool {
		if !f.Matches(tx) {
			return true
		}
		matched++
		if matched > skip {
			page = append(page, tx)
		}
		return len(page) < f.Size
	})
	if err != nil {
		return nil, 0, err
	}
	total, err := t.countLevels(a, f, from, to, countUnits)
	return page, total, err
}

// deepOffset is the offset from which a page is found through the count
// buckets rather than by reading the records it skips (a variable for tests).
var deepOffset = 500

// seekOffset narrows a deep page: it returns an upper bound and how many
// matching transactions remain to skip below it, found by a binary search over
// whole minutes on the count buckets (about 16 bucket sums for 31 days), so a
// page far from the newest reads at most one minute of records beyond its size.
// The bound is the oldest minute start m with at most skip matching
// transactions in [m, f.To]; the scan then starts just before m. to is f.To,
// or the later instant openEnds gave it (the same count, from coarser buckets).
func (t *Tx) seekOffset(a pix.AccountID, f pix.TransactionFilter, to time.Time, skip int) (time.Time, int, error) {
	if skip < deepOffset {
		return f.To, skip, nil
	}
	lo := f.From.Truncate(time.Minute)
	if lo.Before(f.From) {
		lo = lo.Add(time.Minute)
	}
	hi := f.To.Truncate(time.Minute)
	if hi.Before(lo) {
		return f.To, skip, nil
	}
	newer := func(m time.Time) (int, error) { return t.countLevels(a, f, m, to, countUnits) }
	n, err := newer(hi)
	if err != nil || n > skip {
		return f.To, skip, err // the newest minute alone holds more than the offset
	}
	best, bestN := hi, n
	for lo.Before(best) { // invariant: newer(best) <= skip; every minute before lo has more
		mid := lo.Add(best.Sub(lo) / time.Minute / 2 * time.Minute)
		n, err := newer(mid)
		if err != nil {
			return f.To, skip, err
		}
		if n <= skip {
			best, bestN = mid, n
		} else {
			lo = mid.Add(time.Minute)
		}
	}
	return best.Add(-time.Nanosecond), skip - bestN, nil
}

// acctIndexPrefix is the prefix of an account's time index (txAcctKey).
func acctIndexPrefix(a pix.AccountID) []byte { return []byte(prefixTxAcct + num(int64(a)) + "/") }

// openEnds widens [from, to] to whole UTC days on each side beyond which the
// account has no transaction: past the end of the day of its newest one when
// that is not after to (a listing up to now), before the start of the day of
// its oldest one when that is not before from. The count is the same, and an
// edge then falls on a day bucket instead of being counted through the hour
// and minute buckets and, within the last minute, key by key (thousands of
// keys when the account is busy). Two seeks of the time index find the oldest
// and the newest.
func (t *Tx) openEnds(a pix.AccountID, from, to time.Time) (time.Time, time.Time, error) {
	if to.Before(from) {
		return from, to, nil
	}
	prefix := acctIndexPrefix(a)
	oldest, ok, err := t.indexEdge(prefix, false)
	if err != nil || !ok {
		return from, to, err
	}
	newest, _, err := t.indexEdge(prefix, true)
	if err != nil {
		return from, to, err
	}
	const day = 24 * time.Hour
	if !newest.After(to) {
		to = newest.Truncate(day).Add(day - time.Nanosecond)
	}
	if !oldest.Before(from) {
		from = oldest.Truncate(day)
	}
	return from, to, nil
}

// indexEdge returns the creation instant of the oldest entry of a time index
// (prefix + createdAt + id), or of the newest when last; ok is false when the
// index is empty.
func (t *Tx) indexEdge(prefix []byte, last bool) (at time.Time, ok bool, err error) {
	it := t.newIterator(badger.IteratorOptions{Reverse: last, Prefix: prefix})
	defer it.Close()
	seek := prefix
	if last {
		seek = append(append([]byte{}, prefix...), 0xFF)
	}
	it.Seek(seek)
	if !it.ValidForPrefix(prefix) {
		return time.Time{}, false, nil
	}
	key := it.Key()
	n, ok := parseNum(key[len(prefix):min(len(key), len(prefix)+numWidth)])
	if !ok {
		return time.Time{}, false, fmt.Errorf("store: malformed time index key %q", key)
	}
	return time.Unix(0, n).UTC(), true, nil
}

// countLevels counts [from, to]: the whole units of the largest size from their
// buckets, the rest at the edges with the next size, and what is left below the
// smallest by scanning the records.
func (t *Tx) countLevels(a pix.AccountID, f pix.TransactionFilter, from, to time.Time, units []time.Duration) (int, error) {
	if to.Before(from) {
		return 0, nil
	}
	if len(units) == 0 {
		if f.Status == "" && f.Type == "" { // the index keys say enough: no record read
			return t.countKeys(acctIndexPrefix(a), from, to)
		}
		n := 0
		err := t.scanRange(acctIndexPrefix(a), from, to, false, func(tx pix.Transaction) bool {
			if f.Matches(tx) {
				n++
			}
			return true
		})
		return n, err
	}
	u := int64(units[0])
	first := (from.UnixNano() + u - 1) / u // first unit starting at or after from
	end := (to.UnixNano() + 1) / u         // units before this one end by to
	if first >= end {
		return t.countLevels(a, f, from, to, units[1:])
	}
	n, err := t.sumBuckets(a, f, units[0], first, end)
	if err != nil {
		return 0, err
	}
	left, err := t.countLevels(a, f, from, time.Unix(0, first*u-1), units[1:])
	if err != nil {
		return 0, err
	}
	right, err := t.countLevels(a, f, time.Unix(0, end*u), to, units[1:])
	return n + left + right, err
}

// sumBuckets adds the counts of units [first, end) of size u.
func (t *Tx) sumBuckets(a pix.AccountID, f pix.TransactionFilter, u time.Duration, first, end int64) (int, error) {
	prefix := countPrefix(a, u)
	it := t.newIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 64, Prefix: prefix})
	defer it.Close()
	stop := string(countKey(a, u, end))
	n := 0
	for it.Seek(countKey(a, u, first)); it.ValidForPrefix(prefix); it.Next() {
		if string(it.Key()) >= stop {
			break
		}
		var c bucketCounts
		if err := it.Item().Value(c.decode); err != nil {
			return 0, err
		}
		n += int(c.sum(f))
	}
	return n, nil
}

// countKeys counts the entries of a time index (prefix + createdAt + id)
// created in [from, to] without reading the records.
func (t *Tx) countKeys(prefix []byte, from, to time.Time) (int, error) {
	lo, hi := timeBounds(prefix, from, to)
	it := t.newIterator(badger.IteratorOptions{Prefix: prefix})
	defer it.Close()
	n := 0
	for it.Seek(lo); it.ValidForPrefix(prefix) && string(it.Key()) <= string(hi); it.Next() {
		n++
	}
	return n, nil
}

// timeBounds returns the first and last keys of a time index in [from, to].
func timeBounds(prefix []byte, from, to time.Time) (lo, hi []byte) {
	lo = append(append([]byte{}, prefix...), num(from.UnixNano())...)
	hi = append(append([]byte{}, prefix...), num(to.UnixNano())...)
	return lo, append(hi, '/', 0xFF)
}

// scanRange calls fn with the transactions of a time index (prefix + createdAt +
// id) created in [from, to], newest first when reverse, until fn returns false.
func (t *Tx) scanRange(prefix []byte, from, to time.Time, reverse bool, fn func(pix.Transaction) bool) error {
	lo, hi := timeBounds(prefix, from, to)
	it := t.newIterator(badger.IteratorOptions{Reverse: reverse, Prefix: prefix})
	defer it.Close()
	seek, inRange := lo, func(k []byte) bool { return string(k) <= string(hi) }
	if reverse {
		seek, inRange = hi, func(k []byte) bool { return string(k) >= string(lo) }
	}
	for it.Seek(seek); it.ValidForPrefix(prefix); it.Next() {
		key := it.Key()
		if !inRange(key) {
			break
		}
		tx, err := t.Transaction(parseTrailingNum(key))
		if err != nil {
			return err
		}
		if !fn(tx) {
			return nil
		}
	}
	return nil
}
