package badgerstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/dgraph-io/badger/v4"

	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecodec"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// schemaVersion is the layout of the derived keys and of the records a build
// before it would misread. Version 2 added the listing indexes (ix/txacct,
// ix/txkey, txcnt) and the events-by-transaction index (ix/evttx); version 3
// the webhook attempts by id (ix/dlvatt). A data directory written before
// them has records without them. Version 4 stores webhook event bodies as JSON
// (storecodec.Event), which a build before it would read as empty: it refuses the
// directory instead. An upgrade to 4 rebuilds the derived keys once, like any.
// Version 5 adds workspaces (keys under w/<id>/, space.go): a build before it
// would see the default workspace only and drop the others on a reset, so it
// refuses the directory; a version-4 directory needs nothing rebuilt.
const schemaVersion = 5

var schemaKey = []byte("meta/schema")

// derivedPrefixes are the keys rebuilt from the records on an upgrade.
var derivedPrefixes = [][]byte{[]byte(prefixTxAcct), []byte("ix/txkey/"), []byte("txcnt/"), []byte("ix/evttx/"), []byte(prefixAttempt)}

// reindexBatch is how many records one rebuild transaction indexes.
const reindexBatch = 500

// upgrade brings a data directory to schemaVersion: when it records an older
// version (or none), the derived keys are dropped and rebuilt from the
// transaction and event records, and the version is written last, so a crash
// halfway simply rebuilds again on the next open.
func (s *Store) upgrade(ctx context.Context) error {
	var version int
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(schemaKey)
		if err == badger.ErrKeyNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(b []byte) (err error) {
			version, err = strconv.Atoi(string(b))
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("store: read schema version: %w", err)
	}
	switch {
	case version == schemaVersion:
		return nil
	case version == 4: // workspaces change no derived key of the default workspace
		return s.writeSchemaVersion()
	case version > schemaVersion:
		return fmt.Errorf("store: the data directory has schema version %d, newer than this build's %d", version, schemaVersion)
	}
	if err := s.db.DropPrefix(derivedPrefixes...); err != nil {
		return fmt.Errorf("store: drop derived keys: %w", err)
	}
	if err := reindex(ctx, s, "tx/", func(t *Tx, b []byte) error {
		var tx pix.Transaction
		if err := storecodec.Decode(b, &tx); err != nil {
			return err
		}
		return t.indexTransaction(tx)
	}); err != nil {
		return fmt.Errorf("store: rebuild transaction indexes: %w", err)
	}
	if err := reindex(ctx, s, "wh/evt/", func(t *Tx, b []byte) error {
		var e webhook.Event
		if err := storecodec.Decode(b, &e); err != nil {
			return err
		}
		return t.set(eventTxKey(e), nil)
	}); err != nil {
		return fmt.Errorf("store: rebuild event index: %w", err)
	}
	if err := reindex(ctx, s, "wh/dlv/", func(t *Tx, b []byte) error {
		var d webhook.Delivery
		if err := storecodec.Decode(b, &d); err != nil {
			return err
		}
		return t.indexAttempts(d, 0)
	}); err != nil {
		return fmt.Errorf("store: rebuild attempt index: %w", err)
	}
	return s.writeSchemaVersion()
}

func (s *Store) writeSchemaVersion() error {
	return s.db.Update(func(txn *badger.Txn) error {
		return txn.Set(schemaKey, []byte(strconv.Itoa(schemaVersion)))
	})
}

// reindex calls fn with the value of every record under prefix, reindexBatch
// records per read-write transaction.
func reindex(ctx context.Context, s *Store, prefix string, fn func(*Tx, []byte) error) error {
	var vals [][]byte
	flush := func() error {
		if len(vals) == 0 {
			return nil
		}
		err := s.update(ctx, func(t *Tx) error {
			for _, v := range vals {
				if err := fn(t, v); err != nil {
					return err
				}
			}
			return nil
		})
		vals = vals[:0]
		return err
	}
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{PrefetchValues: true, PrefetchSize: 100, Prefix: []byte(prefix)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			if vals = append(vals, v); len(vals) == reindexBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}
