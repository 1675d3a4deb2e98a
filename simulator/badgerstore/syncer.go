package badgerstore

import (
	"log/slog"
	"sync/atomic"
	"time"
)

// A syncer syncs the store's logs (the memtable's write-ahead log and the
// value log: badger.DB.Sync) at a fixed interval, in place of the sync of
// each batch (Options.SyncEvery; serve --sync=DURATION), as Redis's
// "appendfsync everysec" does for its log. A batch is answered once Badger
// has written it into its mapped log, so a process that is killed loses
// nothing the kernel holds; a power loss may lose what was acknowledged
// since the last sync, and the batches of a full memtable still waiting for
// its flush (Badger syncs a memtable's log only with a synced batch; its
// flush then writes and syncs the memtable as a table).
//
// The sync runs beside the writer: a commit never waits for it, and a sync
// that takes long (behind a flush's or a compaction's writes on the same
// disk) delays the next sync, not the requests.
type syncer struct {
	e      *engine
	log    *slog.Logger
	every  time.Duration
	quit   chan struct{}
	done   chan struct{}
	syncs  atomic.Int64 // syncs done
	failed atomic.Int64 // syncs that returned an error
}

func startSyncer(e *engine, every time.Duration, log *slog.Logger) *syncer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &syncer{e: e, log: log, every: every, quit: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *syncer) run() {
	defer close(s.done)
	t := time.NewTicker(s.every) // wall time: how much a power loss can take, not the simulation's
	defer t.Stop()
	synced := s.e.snaps.commits.Load()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
		}
		synced = s.syncSince(synced)
	}
}

// syncSince syncs the logs when the store committed since the commit count
// synced, and returns the count the sync covered (synced again when it
// failed, so that the next tick tries again).
func (s *syncer) syncSince(synced uint64) uint64 {
	n := s.e.snaps.commits.Load()
	if n == synced {
		return synced
	}
	if err := s.e.db.Sync(); err != nil {
		s.failed.Add(1)
		s.log.Error("store: sync of the logs failed; acknowledged writes are not yet on disk", "err", err)
		return synced
	}
	s.syncs.Add(1)
	return n
}

// stop ends the syncer; Badger's Close then writes and syncs what is left.
// A nil syncer stops at once.
func (s *syncer) stop() {
	if s == nil {
		return
	}
	close(s.quit)
	<-s.done
}
