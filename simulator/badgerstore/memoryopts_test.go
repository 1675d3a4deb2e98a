package badgerstore

import (
	"testing"

	"github.com/dgraph-io/badger/v4"
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
		if o.NumMemtables != tt.memtables || o.BlockCacheSize != tt.blockCache || o.IndexCacheSize != tt.idxCache || o.MemTableSize != tt.memtable {
			t.Errorf("budget %d MiB: %d memtables of %d MiB, block cache %d MiB, index cache %d MiB", tt.budget>>20,
				o.NumMemtables, o.MemTableSize>>20, o.BlockCacheSize>>20, o.IndexCacheSize>>20)
		}
	}
}
