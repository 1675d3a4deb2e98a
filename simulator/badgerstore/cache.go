package badgerstore

import (
	"bytes"
	"flag"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// recordCache keeps decoded records of the kinds that nearly every write reads
// and few writes change: accounts, their settings and DICT entries. A
// cash-out reads all three; each read costs a Badger lookup through the LSM
// tree (these keys were written long ago, so they sit in tables, not in the
// memtable) and a JSON decode.
//
// Every entry is a record as of a commit (its commit count, snapshots), and
// the cache knows for each cached kind's key the last commit that wrote it,
// counted before that commit happens: a batch that writes such a key marks it
// written by the commit it is about to make. A transaction reading as of
// commit n may use an entry read as of commit m only when the key was last
// written at or before both: then the record is the same at m and at n. A
// transaction stores what it read only when the key was last written at or
// before its own commit, so a batch never caches its own pending writes, and
// a batch that is discarded only leaves the key looking newer than it is (a
// miss, never a stale hit). Reset moves a floor past every entry.
//
// In a test binary every hit is checked against the store (verifyCache).
type recordCache struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
	written map[string]uint64 // cached kinds' keys: the last commit that wrote them
	floor   uint64            // nothing read before this commit is used or kept
}

type cacheEntry struct {
	val   any // the decoded record (a value, not a pointer)
	found bool
	at    uint64
}

// maxCached bounds the entries and the write marks; past it the cache starts
// over (from a floor at the next commit, which is always safe).
const maxCached = 1 << 16

// verifyCache checks every hit against Badger in test binaries, except while
// they run benchmarks (which measure the cache, not the check).
var verifyCache = sync.OnceValue(func() bool {
	bench := flag.Lookup("test.bench")
	return testing.Testing() && (bench == nil || bench.Value.String() == "")
})

func cachedKind(key []byte) bool {
	return bytes.HasPrefix(key, []byte(prefixAccount)) || bytes.HasPrefix(key, []byte(prefixSettings)) ||
		bytes.HasPrefix(key, []byte(prefixDict))
}

func (c *recordCache) lookup(key []byte, at uint64) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[string(key)]
	if !ok || max(c.written[string(key)], c.floor) > min(e.at, at) {
		return cacheEntry{}, false
	}
	return e, true
}

func (c *recordCache) store(key []byte, at uint64, e cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if max(c.written[string(key)], c.floor) > at {
		return // no lookup could use it (a pending write, an older snapshot)
	}
	if c.entries == nil || len(c.entries) >= maxCached {
		c.entries = make(map[string]cacheEntry)
	}
	e.at = at
	c.entries[string(key)] = e
}

// wrote marks key as written by commit (the commit of the batch writing it).
func (c *recordCache) wrote(key []byte, commit uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.written == nil || len(c.written) >= maxCached {
		c.written = make(map[string]uint64)
		c.entries = nil
		c.floor = max(c.floor, commit)
	}
	c.written[string(key)] = max(c.written[string(key)], commit)
}

// reset forgets everything read before commit.
func (c *recordCache) reset(commit uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries, c.written, c.floor = nil, nil, max(c.floor, commit)
}

// getCached is get for the cached kinds: v points to a T.
func getCached[T any](t *Tx, key []byte, v *T, clone func(T) T) (bool, error) {
	c := &t.store.cache
	if e, ok := c.lookup(key, t.at); ok {
		if e.found {
			*v = clone(e.val.(T))
		}
		if verifyCache() {
			if err := t.verifyHit(key, e.found, *v); err != nil {
				return false, err
			}
		}
		return e.found, nil
	}
	found, err := t.get(key, v)
	if err != nil {
		return false, err
	}
	var val any
	if found {
		val = clone(*v)
	}
	c.store(key, t.at, cacheEntry{val: val, found: found})
	return found, nil
}

// mustGetCached is getCached for a record that must exist, as mustGet is get.
func mustGetCached[T any](t *Tx, key []byte, v *T, clone func(T) T) error {
	found, err := getCached(t, key, v, clone)
	if err == nil && !found {
		err = storage.ErrNotFound
	}
	return err
}

func (t *Tx) verifyHit(key []byte, found bool, got any) error {
	want := reflect.New(reflect.TypeOf(got))
	ok, err := t.get(key, want.Interface())
	if err != nil {
		return err
	}
	if ok != found || (ok && !reflect.DeepEqual(want.Elem().Interface(), got)) {
		return fmt.Errorf("store: cached %s (found %v) %+v differs from the store (found %v) %+v", key, found, got, ok, want.Elem().Interface())
	}
	return nil
}

func same[T any](v T) T { return v }

func cloneAccount(a pix.Account) pix.Account {
	a.PixKeys = slices.Clone(a.PixKeys)
	return a
}
