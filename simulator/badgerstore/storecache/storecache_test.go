package storecache

import (
	"fmt"
	"testing"
)

// Entries live two generations: a key written a generation ago is still
// there, one written two generations ago is gone (a miss, not a stale hit);
// a key written again moves to the newer generation.
func TestRecent_Generations(t *testing.T) {
	var c Recent
	key := []byte("tx/00000000000000000001")
	// fill writes other keys until a new generation starts.
	fill := func(commit uint64) {
		t.Helper()
		for i := 0; ; i++ {
			before := c.curBytes
			c.Commit([]Write{{Key: []byte(fmt.Sprint("tx/fill-", commit, "-", i)), Val: make([]byte, 1000)}}, commit)
			if c.curBytes < before {
				return
			}
		}
	}
	c.Commit([]Write{{Key: key, Val: []byte("v1")}}, 1)
	fill(2)
	if val, _, _, ok := c.Lookup(key, 2); !ok || string(val) != "v1" {
		t.Fatalf("a generation later: %q, %v", val, ok)
	}
	c.Commit([]Write{{Key: key, Val: []byte("v3")}}, 3) // written again: back in the newer one
	fill(4)
	if val, _, _, ok := c.Lookup(key, 4); !ok || string(val) != "v3" {
		t.Fatalf("written again, a generation later: %q, %v", val, ok)
	}
	if _, _, _, ok := c.Lookup(key, 2); ok {
		t.Fatal("an older reader was given a newer version")
	}
	fill(5)
	if _, _, _, ok := c.Lookup(key, 5); ok {
		t.Fatal("still cached two generations later")
	}
	c.Wrote(key, 6)
	if _, _, _, ok := c.Lookup(key, 7); ok {
		t.Fatal("a pending write was readable")
	}
}

// A generation counts its entries' bytes, decoded records included, and gives
// them back when they go.
func TestRecent_GenerationBytes(t *testing.T) {
	var c Recent
	a, b := []byte("tx/a"), []byte("tx/b")
	va := []byte("0123456789")
	c.Commit([]Write{{Key: a, Val: va}, {Key: b, Val: []byte("x")}}, 1)
	want := len(a) + len(va) + 64 + len(b) + 1 + 64
	if c.curBytes != want {
		t.Fatalf("%d bytes, want %d", c.curBytes, want)
	}
	c.Decoded(a, va, "decoded")
	c.Decoded(a, va, "again") // kept once
	if want += len(va); c.curBytes != want {
		t.Fatalf("with a decoded record: %d bytes, want %d", c.curBytes, want)
	}
	c.Commit([]Write{{Key: a, Deleted: true}}, 2)
	c.Wrote(b, 3)
	c.Commit([]Write{{Key: b, Deleted: true}}, 3)
	if want := len(a) + 64 + len(b) + 64; c.curBytes != want { // what a deletion leaves
		t.Fatalf("after deleting both: %d bytes, want %d", c.curBytes, want)
	}
}

// A deletion leaves the key absent from its commit on, for readers as of
// that commit or later, and a write then a deletion in one batch leave it
// absent too.
func TestRecent_Deletions(t *testing.T) {
	var c Recent
	key := []byte("job/1")
	c.Commit([]Write{{Key: key, Val: []byte("v1")}}, 1)
	c.Wrote(key, 2)
	c.Commit([]Write{{Key: key, Deleted: true}}, 2)
	if _, _, found, ok := c.Lookup(key, 2); !ok || found {
		t.Fatalf("after the deletion: found %v, cached %v", found, ok)
	}
	if _, _, _, ok := c.Lookup(key, 1); ok {
		t.Fatal("a reader before the deletion was answered")
	}
	c.Wrote(key, 3)
	c.Commit([]Write{{Key: key, Val: []byte("v3")}, {Key: key, Deleted: true}}, 3)
	if _, _, found, ok := c.Lookup(key, 3); !ok || found {
		t.Fatalf("written then deleted in one batch: found %v, cached %v", found, ok)
	}
}

// A reader that missed stores what it read only when the cache has no entry
// for the key and has forgotten nothing written after the reader's commit.
func TestRecent_Stored(t *testing.T) {
	var c Recent
	key := []byte("tx/1")
	c.Stored(key, 4, []byte("read"), "decoded")
	if val, dec, found, ok := c.Lookup(key, 4); !ok || !found || string(val) != "read" || dec != "decoded" {
		t.Fatalf("stored read: %q, %v, %v, %v", val, dec, found, ok)
	}
	if _, _, _, ok := c.Lookup(key, 3); ok {
		t.Fatal("a reader before the read's commit was answered")
	}
	c.Stored(key, 5, []byte("again"), nil) // an entry exists: kept
	if val, _, _, _ := c.Lookup(key, 5); string(val) != "read" {
		t.Fatalf("a second read replaced the entry: %q", val)
	}
	c.Wrote(key, 6)
	c.Stored(key, 5, []byte("older"), nil) // pending write: refused
	if _, _, _, ok := c.Lookup(key, 7); ok {
		t.Fatal("a read replaced a pending write")
	}
	other := []byte("tx/2")
	c.Commit([]Write{{Key: other, Deleted: true}}, 8)
	c.Stored(other, 7, []byte("before the deletion"), nil)
	if _, _, found, _ := c.Lookup(other, 8); found {
		t.Fatal("a read from before a deletion replaced it")
	}
	// Once a generation is dropped, reads before the newest commit known are
	// not stored: a write after them may have been forgotten.
	for i := 0; c.floor == 0; i++ {
		c.Commit([]Write{{Key: []byte(fmt.Sprint("tx/fill-", i)), Val: make([]byte, 1000)}}, 9)
	}
	for i := 0; c.floor < 10; i++ {
		c.Commit([]Write{{Key: []byte(fmt.Sprint("tx/fill2-", i)), Val: make([]byte, 1000)}}, 10)
	}
	late := []byte("tx/3")
	c.Stored(late, 9, []byte("late"), nil)
	if _, _, _, ok := c.Lookup(late, 10); ok {
		t.Fatal("a read before the floor was stored")
	}
	c.Stored(late, 10, []byte("late"), nil)
	if _, _, _, ok := c.Lookup(late, 10); !ok {
		t.Fatal("a read at the floor was not stored")
	}
	c.Reset(11)
	c.Stored(late, 10, []byte("before the reset"), nil)
	if _, _, _, ok := c.Lookup(late, 11); ok {
		t.Fatal("a read from before a reset was stored")
	}
}

// A decoded record is kept only for the bytes it was decoded from.
func TestRecent_Decoded(t *testing.T) {
	var c Recent
	key := []byte("tx/1")
	v1 := []byte("v1")
	c.Commit([]Write{{Key: key, Val: v1}}, 1)
	c.Decoded(key, []byte("v1"), "from other bytes")
	if _, dec, _, _ := c.Lookup(key, 1); dec != nil {
		t.Fatalf("kept %v, decoded from other bytes", dec)
	}
	c.Decoded(key, v1, "one")
	if val, dec, _, ok := c.Lookup(key, 1); !ok || string(val) != "v1" || dec != "one" {
		t.Fatalf("Lookup: %q, %v, %v", val, dec, ok)
	}
	c.Wrote(key, 2)
	c.Decoded(key, v1, "one")
	c.Commit([]Write{{Key: key, Val: []byte("v2")}}, 2)
	if _, dec, _, _ := c.Lookup(key, 2); dec != nil {
		t.Fatalf("the new version has %v", dec)
	}
}
