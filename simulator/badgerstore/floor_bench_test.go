package badgerstore

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/pixsandbox/pixsandbox/simulator/storage"
)

// BenchmarkDurableCommitFloor measures what Badger itself costs per durable
// commit with this store's options (SyncWrites, the sizes of Open): each op is
// a transaction writing one new 300-byte record, the least a client write can
// do, from 64 concurrent writers so Badger can group the commits. Any route
// that writes durably through the store is bounded by it; docs/performance-log.md
// ("What limits it") compares the write routes with it. Run it on one core to match the load
// run: taskset -c 0 go test -run X -bench DurableCommitFloor -cpu 1.
func BenchmarkDurableCommitFloor(b *testing.B) {
	s := mustOpen(b, b.TempDir())
	defer s.Close()
	val := make([]byte, 300)
	var n atomic.Int64
	b.SetParallelism(64)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			k := []byte(fmt.Sprintf("bench/%020d", n.Add(1)))
			if err := s.Update(ctx, func(tx storage.Tx) error {
				return tx.(*Tx).set(k, val)
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
