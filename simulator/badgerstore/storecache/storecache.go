// Package storecache holds the two caches of badgerstore's reads, keyed by
// the store's keys and versioned by its commit count (the number of batches
// committed so far): Records, decoded records that many writes read and few
// change, and Recent, the stored bytes of records written moments ago. Both
// answer a reader only with what the store held as of the reader's commit;
// the store tells them what each batch writes before the batch commits.
package storecache

import (
	"hash/maphash"
	"sync"
)

// hashSeed is the seed of keyHash, one per process.
var hashSeed = maphash.MakeSeed()

// keyHash is a key's hash in Records.written.
func keyHash(key []byte) uint64 { return maphash.Bytes(hashSeed, key) }

// Records keeps decoded records of the kinds that nearly every write reads
// and few writes change: accounts, their settings and DICT entries, and an
// account's list of webhook targets; and balances, which every balance read
// reads. A cash-out reads the first three and its settlement the list; each
// read costs a Badger lookup through the LSM tree (these keys were written
// long ago, so they sit in tables, not in the memtable) and a JSON decode,
// and the list an iterator besides.
//
// Every entry is a record as of a commit, and
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
// The store checks every hit against Badger in test binaries.
type Records struct {
	mu      sync.Mutex
	entries map[string]Entry
	// written holds, by a hash of the key, the last commit that wrote a
	// cached kind's key. A map of numbers: the garbage collector does not
	// scan it, though it holds up to maxRecords keys (a server of many
	// workspaces writes that many when it seeds them). Two keys with one
	// hash share the later commit: an entry may be taken for stale (a miss),
	// never the reverse.
	written map[uint64]uint64
	floor   uint64 // nothing read before this commit is used or kept
}

// Entry is a record as read at a commit: Val (a value, not a pointer) when
// Found.
type Entry struct {
	Val   any
	Found bool
	at    uint64
}

// maxRecords bounds the entries and the write marks; past it the cache starts
// over (from a floor at the next commit, which is always safe).
const maxRecords = 1 << 16

// Lookup returns the entry of key for a reader as of commit at, when the cache
// has one the reader may use.
func (c *Records) Lookup(key []byte, at uint64) (Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[string(key)]
	if !ok || max(c.written[keyHash(key)], c.floor) > min(e.at, at) {
		return Entry{}, false
	}
	return e, true
}

// Store keeps e, read as of commit at, unless key was written after at.
func (c *Records) Store(key []byte, at uint64, e Entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if max(c.written[keyHash(key)], c.floor) > at {
		return // no lookup could use it (a pending write, an older snapshot)
	}
	if c.entries == nil || len(c.entries) >= maxRecords {
		c.entries = make(map[string]Entry)
	}
	e.at = at
	c.entries[string(key)] = e
}

// Wrote marks key as written by commit (the commit of the batch writing it),
// before that commit happens.
func (c *Records) Wrote(key []byte, commit uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.written == nil || len(c.written) >= maxRecords {
		c.written = make(map[uint64]uint64)
		c.entries = nil
		c.floor = max(c.floor, commit)
	}
	h := keyHash(key)
	c.written[h] = max(c.written[h], commit)
}

// Reset forgets everything read before commit.
func (c *Records) Reset(commit uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries, c.written, c.floor = nil, nil, max(c.floor, commit)
}

// Recent keeps the stored bytes of the records that writes produce and
// read back soon after: transactions (a settlement reads the one its cash-out
// wrote two seconds before; a listing's first page reads the newest), pending
// jobs and their id index (a settlement completes the job its cash-out
// scheduled). Under load these keys have left the memtable by the time they
// are read again, so each read went through the tables of the LSM tree.
//
// It holds the bytes, so a hit decodes exactly what Badger would return, and
// for transactions also the record its first reader decoded from them. A
// batch marks each key it writes as pending for the commit it is about to
// make (not readable), and once that commit succeeds stores what it wrote,
// or that the key is absent from that commit on. The store reports every
// write of these kinds, so an entry is always the key's last write, and a
// transaction reading as of commit n may use it when it was committed at or
// before n. A batch that is discarded leaves its keys pending: misses until
// written again. A reader that missed may store what it read (Stored) when
// the cache has no entry for the key and has forgotten nothing written since
// the reader's commit (the floor moves to the newest commit it knows of each
// time a generation is dropped).
//
// Entries live in two generations of about GenerationBytes each; when the
// newer one is full the older is dropped. The store checks every hit against
// Badger in test binaries.
type Recent struct {
	mu       sync.Mutex
	cur, old map[string]*recentEntry
	curBytes int    // the size of cur's entries (entrySize)
	newest   uint64 // the newest commit a write or a read told of
	floor    uint64 // reads before this commit are not stored: writes after them may be forgotten
}

type recentEntry struct {
	val     []byte
	decoded any    // val decoded by its first reader (Decoded), or nil
	at      uint64 // the commit that wrote it (or that it was read at)
	pending bool   // at has not committed (or never will: a discarded batch)
	absent  bool   // at deleted the key
}

// GenerationBytes bounds each generation, counted by entrySize. Under
// cash-outs at full speed (about 3,000/s here) a cash-out and its settlement
// add about 1.5 KB (its transaction, decoded once by a reader, its job and
// the job's id while it is pending), so a generation fills in about 4 s and
// an entry lives 4 to 8 s: longer than the settlement delay (2 s) and the lag
// a burst of settlements leaves.
const GenerationBytes = 16 << 20

// entrySize is what an entry counts against its generation: its key, its
// bytes, the decoded record (counted as big as the bytes) and the map's own
// share.
func entrySize(key []byte, e recentEntry) int {
	n := len(key) + len(e.val) + 64
	if e.decoded != nil {
		n += len(e.val)
	}
	return n
}

// Lookup returns what key holds as of commit at, when an entry knows: its
// stored bytes and what a reader decoded from them (Decoded), if any, or that
// the key is absent (found false). Neither must be changed.
func (c *Recent) Lookup(key []byte, at uint64) (val []byte, decoded any, found, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(key)
	if e == nil || e.pending || e.at > at {
		return nil, nil, false, false
	}
	return e.val, e.decoded, !e.absent, true
}

// entry returns key's entry, or nil. Call with c.mu held.
func (c *Recent) entry(key []byte) *recentEntry {
	if e, ok := c.cur[string(key)]; ok {
		return e
	}
	return c.old[string(key)]
}

// Stored keeps val, the bytes of key a reader as of commit at read from the
// store, and v, what it decoded from them (nil for none), unless the cache
// has an entry for key (the key's last write: the same bytes, or newer) or
// may have forgotten a write after at. v must hold no references that a
// reader could change through a copy.
func (c *Recent) Stored(key []byte, at uint64, val []byte, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at < c.floor || c.entry(key) != nil {
		return
	}
	c.add(key, recentEntry{val: val, decoded: v, at: at})
}

// Decoded keeps v, the record a reader decoded from val (bytes Lookup
// returned for key), for the readers after it, unless key was written since.
// v must hold no references that a reader could change through a copy.
func (c *Recent) Decoded(key, val []byte, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, inCur := c.cur[string(key)]
	if !inCur {
		if e = c.old[string(key)]; e == nil {
			return
		}
	}
	if e.pending || e.absent || e.decoded != nil || len(e.val) == 0 || len(e.val) != len(val) || &e.val[0] != &val[0] {
		return
	}
	e.decoded = v
	if inCur {
		c.curBytes += len(val) // entrySize counts the decoded record now
	}
}

// Wrote marks key as written by commit, which has not happened yet: its entry
// is pending, not readable, until Commit.
func (c *Recent) Wrote(key []byte, commit uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.put(key, recentEntry{at: commit, pending: true})
}

// put makes e key's entry. An entry in the newer generation is changed in
// place (the batch that marked it pending stores what it wrote). Call with
// c.mu held.
func (c *Recent) put(key []byte, e recentEntry) {
	if p, ok := c.cur[string(key)]; ok {
		c.curBytes += entrySize(key, e) - entrySize(key, *p)
		*p = e
		c.newest = max(c.newest, e.at)
		c.rotateWhenFull()
		return
	}
	delete(c.old, string(key))
	c.add(key, e)
}

// add adds e, for a key without an entry, to the newer generation, and starts
// a new one when it is full. Call with c.mu held.
func (c *Recent) add(key []byte, e recentEntry) {
	if c.cur == nil {
		c.cur = make(map[string]*recentEntry)
	}
	c.cur[string(key)] = &e
	c.curBytes += entrySize(key, e)
	c.newest = max(c.newest, e.at)
	c.rotateWhenFull()
}

// rotateWhenFull drops the older generation and starts a new one when the
// newer is full. Call with c.mu held.
func (c *Recent) rotateWhenFull() {
	if c.curBytes >= GenerationBytes {
		c.old, c.cur, c.curBytes = c.cur, make(map[string]*recentEntry, len(c.cur)), 0
		c.floor = c.newest // what old held is forgotten
	}
}

// Reset forgets everything: the store dropped every key at commit.
func (c *Recent) Reset(commit uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cur, c.old, c.curBytes = nil, nil, 0
	c.newest = max(c.newest, commit)
	c.floor = c.newest
}

// Write is one write of a batch to a key Recent keeps: Val stored, or the key
// deleted. Val is not changed afterwards (Badger holds it until the commit
// too).
type Write struct {
	Key, Val []byte
	Deleted  bool
}

// Commit applies, in order, the writes of the batch that made commit: what
// it stored, or that it deleted the key.
func (c *Recent) Commit(ws []Write, commit uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range ws {
		if w.Deleted {
			c.put(w.Key, recentEntry{at: commit, absent: true})
		} else {
			c.put(w.Key, recentEntry{val: w.Val, at: commit})
		}
	}
}
