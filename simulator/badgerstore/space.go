package badgerstore

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Workspaces. Every key belongs to exactly one workspace. The default
// workspace's keys carry no prefix (the layout of keys.go, so a data directory
// written before workspaces existed opens unchanged); another workspace's keys
// are the same keys behind the prefix "w/<id>/" (spacePrefix). No key of the
// default workspace starts with "w/", so a prefix iteration of one workspace
// never meets another's keys. A Store is one workspace's view: its Tx adds the
// prefix to every key it reads or writes, at the leaves (get, set, del, the
// caches, the iterators), and strips it from the keys an iteration returns, so
// the code of the other files knows nothing of workspaces. What is kept per
// workspace in memory is the pending-jobs floor and the agenda's notifier;
// the database, the caches (keyed by full key), the sequences and the writer
// are shared.

// prefixSpaces is the top-level prefix of every workspace but the default.
const prefixSpaces = "w/"

// prefixRegistry holds one record per workspace (PutSpaceRecord): what a
// server needs to open it. It belongs to no workspace, so no workspace's
// reset drops it.
const prefixRegistry = "wsreg/"

// spacePrefix is the key prefix of workspace id ("" for the default).
func spacePrefix(id string) []byte {
	if id == "" {
		return nil
	}
	return []byte(prefixSpaces + id + "/")
}

// Space returns workspace id's Store over the same database and writer: its
// keys live behind their own prefix. id must be non-empty and contain no '/'.
// The same id returns the same Store. Close on it does nothing.
func (s *Store) Space(id string) *Store {
	if id == "" || bytes.IndexByte([]byte(id), '/') >= 0 {
		panic(fmt.Sprintf("badgerstore: bad workspace id %q", id))
	}
	e := s.engine
	e.spacesMu.Lock()
	defer e.spacesMu.Unlock()
	if v, ok := e.spaces[id]; ok {
		return v
	}
	v := &Store{engine: e, pre: spacePrefix(id), id: id}
	e.spaces[id] = v
	return v
}

// Workspace is the id of the Store's workspace ("" for the default).
func (s *Store) Workspace() string { return s.id }

// full returns key behind the workspace's prefix of the running operation.
func (t *Tx) full(key []byte) []byte {
	pre := t.store.pre
	if len(pre) == 0 {
		return key
	}
	out := make([]byte, 0, len(pre)+len(key))
	return append(append(out, pre...), key...)
}

// iterator is a Badger iterator over one workspace's keys: Seek and
// ValidForPrefix take the workspace's keys, Key returns one.
type iterator struct {
	*badger.Iterator
	pre []byte
}

func (it *iterator) withPre(k []byte) []byte {
	if len(it.pre) == 0 {
		return k
	}
	out := make([]byte, 0, len(it.pre)+len(k))
	return append(append(out, it.pre...), k...)
}

// Seek moves to the workspace's key k, or the first after it (before it when
// reverse).
func (it *iterator) Seek(k []byte) { it.Iterator.Seek(it.withPre(k)) }

// ValidForPrefix reports whether the iterator stands on a key of the
// workspace under prefix.
func (it *iterator) ValidForPrefix(prefix []byte) bool {
	return it.Iterator.ValidForPrefix(it.withPre(prefix))
}

// Key is the current key without the workspace's prefix; valid until Next.
func (it *iterator) Key() []byte { return it.Item().Key()[len(it.pre):] }

// ownPrefixes returns the prefixes that hold exactly the workspace's keys:
// its own prefix, or for the default workspace each top-level prefix in use
// (the part of a key up to its first '/') but the workspaces'.
func (s *Store) ownPrefixes() ([][]byte, error) {
	if len(s.pre) > 0 {
		return [][]byte{s.pre}, nil
	}
	var out [][]byte
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); {
			k := it.Item().Key()
			i := bytes.IndexByte(k, '/')
			if i < 0 { // a key with no '/': itself
				out = append(out, bytes.Clone(k))
				it.Next()
				continue
			}
			top := bytes.Clone(k[:i+1])
			if string(top) != prefixSpaces && string(top) != prefixRegistry {
				out = append(out, top)
			}
			// The next key after every key under top: top with '/' raised to '0'.
			next := slices.Clone(top)
			next[len(next)-1]++
			it.Seek(next)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: list top-level prefixes: %w", err)
	}
	return out, nil
}

// Spaces returns the ids of the workspaces that have at least one key, in id
// order (the default workspace not included).
func (s *Store) Spaces() ([]string, error) {
	var out []string
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefixSpaces)})
		defer it.Close()
		for it.Seek([]byte(prefixSpaces)); it.ValidForPrefix([]byte(prefixSpaces)); {
			rest := it.Item().Key()[len(prefixSpaces):]
			i := bytes.IndexByte(rest, '/')
			if i < 0 {
				it.Next()
				continue
			}
			id := string(rest[:i])
			out = append(out, id)
			it.Seek([]byte(prefixSpaces + id + "0")) // past "w/<id>/"
		}
		return nil
	})
	return out, err
}

// dropBatch is how many keys one operation of DropSpace deletes: small
// enough that an operation costs the batch it shares a few milliseconds.
const dropBatch = 1000

// DropSpace deletes every key of workspace id, dropBatch keys per writer
// operation, so other workspaces' writes share the writer between them
// instead of waiting for the whole deletion (Badger's DropPrefix would stop
// every write while it flushes). It is not atomic: the caller makes the
// workspace unreachable first and calls it again after a crash (it is
// idempotent). The workspace's Store must not be used afterwards.
func (s *Store) DropSpace(ctx context.Context, id string) error {
	v := s.Space(id)
	if err := s.seqs.releasePrefix(v.pre); err != nil {
		return fmt.Errorf("store: release sequences: %w", err)
	}
	for {
		var keys [][]byte
		err := s.db.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: v.pre})
			defer it.Close()
			for it.Seek(v.pre); it.ValidForPrefix(v.pre) && len(keys) < dropBatch; it.Next() {
				keys = append(keys, bytes.Clone(it.Item().Key()[len(v.pre):]))
			}
			return nil
		})
		if err != nil || len(keys) == 0 {
			if err == nil {
				s.forget(id)
			}
			return err
		}
		batchStart := time.Now()                // wall time: pacing only
		err = v.update(ctx, func(t *Tx) error { // through the workspace, so the caches hear of each key
			for _, k := range keys {
				if err := t.del(k); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("store: delete workspace %s: %w", id, err)
		}
		// A pause as long as the batch took leaves the core to the other
		// workspaces' requests half the time (wall time: pacing only).
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Since(batchStart)):
		}
	}
}

// forget drops the workspace's Store from the ones handed out.
func (s *Store) forget(id string) {
	s.spacesMu.Lock()
	defer s.spacesMu.Unlock()
	if v, ok := s.spaces[id]; ok {
		s.retired.merge(v.Activity())
	}
	delete(s.spaces, id)
}

// PutSpaceRecord writes workspace id's registry record (durable on return).
func (s *Store) PutSpaceRecord(ctx context.Context, id string, rec []byte) error {
	return s.root().update(ctx, func(t *Tx) error { return t.set([]byte(prefixRegistry+id), rec) })
}

// DeleteSpaceRecord deletes workspace id's registry record.
func (s *Store) DeleteSpaceRecord(ctx context.Context, id string) error {
	return s.root().update(ctx, func(t *Tx) error { return t.del([]byte(prefixRegistry + id)) })
}

// SpaceRecords returns every workspace's registry record by id.
func (s *Store) SpaceRecords(ctx context.Context) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := s.root().view(ctx, func(t *Tx) error {
		return t.scan([]byte(prefixRegistry), func(key, val []byte) (bool, error) {
			out[string(key[len(prefixRegistry):])] = val
			return false, nil
		})
	})
	return out, err
}

// root is the default workspace's Store.
func (s *Store) root() *Store { return s.engine.root }
