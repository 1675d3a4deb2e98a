// Package badgerstore implements storage.Store over an embedded Badger database.
// Values are JSON, so a dump of the database stays readable. Keys are laid out in
// keys.go so that prefix iteration yields useful orders (jobs by due time, journal
// entries by sequence). A missing record reads as storage.ErrNotFound, so the
// core never tests for Badger's errors. Paths below are the repository's.
//
// # The single writer
//
// Every operation goes to the store's single writer (badgerstore/writer.go):
// one goroutine takes whatever operations are waiting (up to 512, and cut at 1
// MiB of writes), runs them one after another in one Badger transaction — each
// sees the writes of those before it — and commits them with one sync
// (SyncWrites), then answers every caller of the batch. Before collecting it
// yields once, so the callers it has just answered submit first: on one core
// the first of them would otherwise hand its operation straight to the writer,
// which the scheduler runs next, and that operation would be synced nearly
// alone. The writes of the agenda's jobs (agenda.IsJob) wait in a line of
// their own: a batch that takes client writes takes at most two job writes for
// each (at least 64, and it keeps those 64 places however many clients wait,
// so jobs are never starved), and jobs fill the batches no client write is
// waiting for, so a burst of due settlements stretches the batches of the
// clients waiting with it by a bounded share instead of holding them behind
// hundreds of jobs. An operation that fails before writing (most business
// refusals) costs nothing more; one that fails after writing makes the writer
// discard the Badger transaction and run the operations that had succeeded
// again in a fresh one, without it (operations are free of side effects
// outside their Tx, so running one twice is safe). A panic in an operation is
// its own 500. An operation too big to share a batch commits alone. One writer
// means no write conflicts (Badger's conflict detection is off) and no locks;
// one sync per batch means concurrent requests share the cost of a sync.
// Acknowledged means synced by default; --sync=100ms (any interval from 1 ms
// to a minute) answers once Badger has written the batch to its log and syncs
// the logs in the background at that interval (syncer.go), and --sync=false
// drops the sync for throwaway runs: a killed process loses nothing in either,
// a power loss what was not yet synced. The writer times each batch it
// commits, running its operations and waiting for Badger's write and sync
// (WriterStats, writerstats.go), and /metrics exports both histograms with the
// batch and operation counts (pixsandbox_store_*): a commit far above the
// others is a stall every waiting write shares. The writer also keeps each
// workspace's activity (Store.Activity, activity.go): PutTransaction,
// PutDelivery and the job writes note in their operation the transactions
// created and finished, the money confirmed, the webhook attempts and the jobs
// put and removed, and the writer adds an operation's notes once its batch has
// committed (never those of an operation that failed, of a run it discarded,
// or of a failed commit). /metrics reads them in memory, so a scrape costs the
// same on a store of 300,000 transactions as on an empty one; only the due
// jobs are counted from the store, from the earliest, up to 10,000.
//
// # Keys, indexes and the codec
//
// Indexes are written in the transaction that writes their record. The
// listings read an account's time index (ix/txacct/<account>/<createdAt>/<id>,
// and per PIX key ix/txkey/…) newest first, so a page costs its size; their
// totals add counters by status × type kept per UTC day, hour and minute
// (txcnt/…, 12 varints each), so a 31-day total reads at most 31 + 46 + 118
// counters and scans two partial minutes. Derived keys carry a schema version
// (meta/schema): opening a data directory of an older layout drops and
// rebuilds them from the records (the version is written last, so an
// interrupted rebuild runs again); a directory of a newer layout is refused.
// How a record becomes bytes is simulator/badgerstore/storecodec: transactions
// are stored without their zero fields (storecodec.Tx) and webhook events with
// their body as JSON when that keeps its bytes (storecodec.Event); records
// stored in full, or with a base64 body, read the same. Records are JSON,
// encoded and decoded with github.com/goccy/go-json, which writes the bytes
// encoding/json writes for every stored type and reads them into the same
// values (TestCodec_SameAsEncodingJSON fills each type at random, with awkward
// strings, and at its zero value), at about half the cost to encode a
// transaction record and a quarter to decode one.
//
// # Caches
//
// Accounts, settings, DICT entries and each account's list of webhook targets,
// which nearly every write reads and few change, and balances, which every
// balance read reads, are kept decoded by the store (badgerstore/cache.go,
// storecache.Records): an entry read as of one commit serves a transaction
// reading as of another only when the key was last written at or before both,
// and a batch marks the keys it writes before it commits. Transactions,
// pending jobs and the jobs' id index are kept as the bytes their batch wrote,
// for a few seconds of writes (badgerstore/recent.go, storecache.Recent): a
// settlement reads back the transaction and the job its cash-out wrote two
// seconds before, when under load they have left the memtable. An entry is the
// key's last write (or its deletion), pending (unreadable) until its batch
// commits. A transaction's first reader keeps what it decoded, and a reader
// that missed stores what it read when the cache has no entry for the key and
// has forgotten nothing written since the reader's commit, so a listing of
// recent transactions, or a page read again and again, decodes each version
// once. Test binaries check every hit of both caches against Badger. Request
// bodies decode on a fast path when a scan of their bytes shows the strict
// decoder would report nothing (httpapi/strictjson/fast.go).
//
// # Snapshots and Badger's settings
//
// Read-only store transactions share one Badger snapshot until the next commit
// (badgerstore/snapshot.go): opening a Badger transaction takes the oracle's
// lock and a channel send to the read watermark, where concurrent readers
// queued on one core. Store.update counts every commit before it returns, and
// a reader opens a new snapshot when the count moved, so a read after an
// acknowledged write always sees it. The writer's batch reads the last
// commit's snapshot too, and releases it before it answers the batch's
// callers, so a superseded snapshot is discarded as soon as its last reader is
// done. Reads never go through the writer, so a listing or a balance never
// waits behind a batch or a settlement backlog. One wait is Badger's own:
// while a commit rotates the memtable (a new WAL file and skiplist arena,
// under the database's lock), every Get and new iterator waits for the
// rotation to end, tens of milliseconds on this host and up to about 190 ms
// (docs/performance-log.md, "What reads wait for during the backlog").
// Badger's base level is 64 MiB in 12 MiB tables (its defaults: 10 MiB in 2
// MiB), so under sustained writes fewer compactions take the core from
// requests (docs/performance-log.md, "A larger base level").
package badgerstore
