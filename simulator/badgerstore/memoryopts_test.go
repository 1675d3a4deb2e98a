package badgerstore

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// TestMemoryOptions: the budget sizes the memtables kept and the caches.
func TestMemoryOptions(t *testing.T) {
	for _, tt := range []struct {
		budget               int64
		memtables            int
		memtable, table      int64
		blockCache, idxCache int64
	}{
		{0, 5, 16 << 20, 12 << 20, 16 << 20, 8 << 20},
		{1 << 30, 5, 16 << 20, 12 << 20, 16 << 20, 8 << 20},
		{4 << 30, 5, 16 << 20, 12 << 20, 64 << 20, 32 << 20},
		{256 << 20, 3, 8 << 20, 2 << 20, 8 << 20, 4 << 20},
	} {
		o := memoryOptions(badger.DefaultOptions(""), tt.budget)
		if o.NumMemtables != tt.memtables || o.BlockCacheSize != tt.blockCache || o.IndexCacheSize != tt.idxCache || o.MemTableSize != tt.memtable ||
			o.BaseTableSize != tt.table || (o.Compression == options.None) != (tt.budget > 0 && tt.budget < 512<<20) {
			t.Errorf("budget %d MiB: %d memtables of %d MiB, tables of %d MiB, block cache %d MiB, index cache %d MiB, compression %v", tt.budget>>20,
				o.NumMemtables, o.MemTableSize>>20, o.BaseTableSize>>20, o.BlockCacheSize>>20, o.IndexCacheSize>>20, o.Compression)
		}
	}
}

// A data directory whose tables were written compressed opens and reads
// under a budget that writes them uncompressed (the lean profile): Badger's
// manifest records each table's compression, so a server may change budgets
// over one data directory.
func TestOpen_ReadsCompressedTables(t *testing.T) {
	dir := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(dir).WithCompression(options.Snappy).WithLoggingLevel(badger.ERROR))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("zz-kept"), []byte("compressed")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil { // flushes the memtable into a compressed table
		t.Fatal(err)
	}
	s, err := Open(Options{Dir: dir, Memory: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte("zz-kept"))
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err == nil && string(v) != "compressed" {
			t.Errorf("read %q", v)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Badger's warnings reach the store's logger, marked as Badger's, and not
// Badger's own logger on stderr; its info lines are dropped.
func TestOpen_BadgerLogsToStoreLogger(t *testing.T) {
	var buf bytes.Buffer
	s, err := Open(Options{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	opts := s.db.Opts()
	opts.Warningf("a warning %d", 7)
	opts.Infof("an info line")
	if got := buf.String(); !strings.Contains(got, "a warning 7") || !strings.Contains(got, "component=badger") || strings.Contains(got, "an info line") {
		t.Errorf("store log: %q", got)
	}
}
