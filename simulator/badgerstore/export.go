package badgerstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"github.com/pixsandbox/pixsandbox/simulator/agenda"
	"github.com/pixsandbox/pixsandbox/simulator/badgerstore/storecodec"
	"github.com/pixsandbox/pixsandbox/simulator/ledger"
	"github.com/pixsandbox/pixsandbox/simulator/pix"
	"github.com/pixsandbox/pixsandbox/simulator/storage"
	"github.com/pixsandbox/pixsandbox/simulator/webhook"
)

// A workspace's snapshot (docs/workspaces.md) carries its records as they
// are stored: each key of the workspace (without its prefix) with its value
// (package workspace writes them as JSON, or base64 where a value is not
// JSON: the listing counters, the sequences' leases, the jobs' id index).
// Importing writes them
// under a new workspace's prefix, so everything the workspace had — accounts,
// credentials, certificates, its token signing key, transactions with their
// indexes and counters, charges, refunds, MEDs, targets, deliveries, pending
// jobs, its sequences and its clock — comes back as it was.

// Records returns every record of workspace id ("" for the default, less the
// schema version, which belongs to the data directory) in key order.
func (s *Store) Records(ctx context.Context, id string) ([]storage.Record, error) {
	v := s.root()
	if id != "" {
		v = s.Space(id)
	}
	prefixes, err := v.ownPrefixes()
	if err != nil {
		return nil, err
	}
	var out []storage.Record
	err = s.db.View(func(txn *badger.Txn) error {
		for _, p := range prefixes {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: p, PrefetchValues: true, PrefetchSize: 100})
			for it.Seek(p); it.ValidForPrefix(p); it.Next() {
				if err := ctx.Err(); err != nil {
					it.Close()
					return err
				}
				k := string(it.Item().Key()[len(v.pre):])
				if k == string(schemaKey) {
					continue
				}
				val, err := it.Item().ValueCopy(nil)
				if err != nil {
					it.Close()
					return err
				}
				out = append(out, storage.Record{Key: k, Val: val})
			}
			it.Close()
		}
		return nil
	})
	return out, err
}

// importBatch is the most records one writer operation of ImportSpace
// writes; importBytes the most bytes of keys and values, a quarter of what
// Badger takes in one transaction (a sixth of the memtable): a batch of the
// writer may then still take the operation beside others.
const importBatch = 2000

func (s *Store) importBytes() int { return int(s.db.MaxBatchSize() / 4) }

// ImportSpace writes records into workspace id, importBatch records or
// importBytes bytes per writer operation, whichever comes first. The
// workspace must be new (no key); the caller makes it reachable only once
// ImportSpace returned (and drops it on an error), so a crash halfway leaves
// keys that no registry record names.
func (s *Store) ImportSpace(ctx context.Context, id string, records []storage.Record) error {
	v := s.Space(id)
	limit := s.importBytes()
	for len(records) > 0 {
		n, size := 0, 0
		for n < len(records) && n < importBatch && (n == 0 || size+len(records[n].Key)+len(records[n].Val) <= limit) {
			size += len(records[n].Key) + len(records[n].Val)
			n++
		}
		batch := records[:n]
		records = records[n:]
		err := v.update(ctx, func(t *Tx) error {
			for _, r := range batch {
				if err := t.set([]byte(r.Key), r.Val); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("store: import into workspace %s: %w", id, err)
		}
	}
	return nil
}

// recordKind is what a key's family stores: a type its JSON value must
// decode into, JSON of any form, or bytes.
type recordKind struct {
	prefix string
	// decode, when set, decodes a JSON value of the family; nil with
	// binary false takes any JSON value (or none: an index's empty value).
	decode func([]byte) error
	binary bool // the value is not JSON: base64 in a snapshot
}

func decodeInto[T any]() func([]byte) error {
	return func(b []byte) error {
		var v T
		return storecodec.Decode(b, &v)
	}
}

// recordKinds are the key families of a workspace, longest prefix first where
// one prefix begins another.
var recordKinds = []recordKind{
	{prefix: "meta/seq/", binary: true},
	{prefix: prefixMeta},
	{prefix: prefixAccount, decode: decodeInto[pix.Account]()},
	{prefix: prefixBalance, decode: decodeInto[balanceRecord]()},
	{prefix: prefixSettings, decode: decodeInto[pix.Settings]()},
	{prefix: prefixDict, decode: decodeInto[pix.DictEntry]()},
	{prefix: prefixJournal, decode: decodeInto[ledger.Entry]()},
	{prefix: prefixCred, decode: decodeInto[pix.Credential]()},
	{prefix: prefixCert, decode: decodeInto[pix.Certificate]()},
	{prefix: prefixJobID, binary: true},
	{prefix: prefixJobDone, decode: decodeInto[doneRecord]()},
	{prefix: prefixJob, decode: decodeInto[agenda.Job]()},
	{prefix: prefixTx, decode: decodeInto[pix.Transaction]()},
	{prefix: "txcnt/", binary: true},
	{prefix: "ix/"},
	{prefix: "wh/tgt/", decode: decodeInto[webhook.Target]()},
	{prefix: "wh/evt/", decode: decodeInto[webhook.Event]()},
	{prefix: "wh/dlv/", decode: decodeInto[webhook.Delivery]()},
	{prefix: "refund/", decode: decodeInto[pix.Refund]()},
	{prefix: "med/", decode: decodeInto[pix.MED]()},
	{prefix: "loc/", decode: decodeInto[pix.LocationRef]()},
	{prefix: "charge/", decode: decodeInto[pix.Charge]()},
	{prefix: "cob/", decode: decodeInto[pix.Cob]()},
	{prefix: "ctr/", decode: decodeInto[pix.Cents]()},
	{prefix: "idem/"},
	{prefix: "splitq/", decode: decodeInto[pix.QueuedSplit]()},
}

func kindOf(key string) (recordKind, bool) {
	for _, k := range recordKinds {
		if strings.HasPrefix(key, k.prefix) {
			return k, true
		}
	}
	return recordKind{}, false
}

// CheckRecord checks a record of a snapshot before anything is written: its
// key belongs to a known family of a workspace's keys (never another
// workspace's or the registry's) and its value is what the family stores.
// The error says what is wrong, for the caller to prefix with the record's
// path.
func CheckRecord(key string, val []byte) error {
	if key == "" || strings.HasPrefix(key, prefixSpaces) || strings.HasPrefix(key, prefixRegistry) || key == string(schemaKey) {
		return fmt.Errorf("key %q is not a workspace's record", key)
	}
	k, ok := kindOf(key)
	switch {
	case !ok:
		return fmt.Errorf("key %q is of no known kind of record", key)
	case k.binary:
		return nil
	case len(val) == 0 && k.decode == nil:
		return nil // an index entry with no value
	case !json.Valid(val):
		return fmt.Errorf("the value of %q must be JSON", key)
	case k.decode != nil:
		if err := k.decode(val); err != nil {
			return fmt.Errorf("the value of %q is not a valid %s record: %v", key, strings.TrimSuffix(k.prefix, "/"), err)
		}
	}
	return nil
}
