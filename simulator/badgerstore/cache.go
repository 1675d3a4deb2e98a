package badgerstore

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"

	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecache"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/selfcheck"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// checkInTests is whether the store checks, against Badger, what it would
// otherwise trust: every hit of its caches, and a PutNewJob's claim that no
// job of that id is pending (test binaries, not their benchmarks).
var checkInTests = selfcheck.On

// cacheKeyOf returns the key of the cache entry that a write of key changes,
// or nil when it changes none. A record of a cached kind is its own entry; a
// webhook target's index key (ix/whtgt/<account>/<id>, written with every
// change of the target: PutWebhookTarget, DeleteWebhookTarget) changes its
// account's list (targetsCacheKey).
func cacheKeyOf(key []byte) []byte {
	switch {
	case bytes.HasPrefix(key, []byte(prefixAccount)), bytes.HasPrefix(key, []byte(prefixSettings)),
		bytes.HasPrefix(key, []byte(prefixDict)), bytes.HasPrefix(key, []byte(prefixBalance)):
		return key
	case bytes.HasPrefix(key, []byte(prefixTargetIndex)) && len(key) > len(prefixTargetIndex)+numWidth:
		if a, ok := parseNum(key[len(prefixTargetIndex) : len(prefixTargetIndex)+numWidth]); ok {
			return targetsCacheKey(pix.AccountID(a))
		}
	}
	return nil
}

// getCached is get for the cached kinds: v points to a T.
func getCached[T any](t *Tx, key []byte, v *T, clone func(T) T) (bool, error) {
	return loadCached(t, key, v, clone, func(v *T) (bool, error) { return t.get(key, v) })
}

// loadCached is getCached for an entry that load reads from the store into v
// (a list read by an iteration): key names the entry, and writes that change
// it mark key (cacheKeyOf).
func loadCached[T any](t *Tx, key []byte, v *T, clone func(T) T, load func(v *T) (bool, error)) (bool, error) {
	c, full := &t.store.cache, t.full(key)
	if e, ok := c.Lookup(full, t.at); ok {
		if e.Found {
			*v = clone(e.Val.(T))
		}
		if checkInTests() {
			if err := verifyHit(key, e.Found, *v, load); err != nil {
				return false, err
			}
		}
		return e.Found, nil
	}
	found, err := load(v)
	if err != nil {
		return false, err
	}
	var val any
	if found {
		val = clone(*v)
	}
	c.Store(full, t.at, storecache.Entry{Val: val, Found: found})
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

func verifyHit[T any](key []byte, found bool, got T, load func(v *T) (bool, error)) error {
	var want T
	ok, err := load(&want)
	if err != nil {
		return err
	}
	if ok != found || (ok && !reflect.DeepEqual(want, got)) {
		return fmt.Errorf("store: cached %s (found %v) %+v differs from the store (found %v) %+v", key, found, got, ok, want)
	}
	return nil
}

func same[T any](v T) T { return v }

func cloneAccount(a pix.Account) pix.Account {
	a.PixKeys = slices.Clone(a.PixKeys)
	return a
}

func cloneTargets(ts []webhook.Target) []webhook.Target {
	ts = slices.Clone(ts)
	for i := range ts {
		ts[i].Headers = slices.Clone(ts[i].Headers)
	}
	return ts
}
