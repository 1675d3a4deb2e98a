package storecache

import (
	"fmt"
	"testing"
)

// Entries live two generations: a key written Generation writes ago is
// still there, one written twice as many ago is gone (a miss, not a stale
// hit); a key written again moves to the newer generation.
func TestRecentCache_Generations(t *testing.T) {
	var c Recent
	key := []byte("tx/00000000000000000001")
	c.Commit([]Write{{Key: key, Val: []byte("v1")}}, 1)
	fill := func(n int, from uint64) {
		for i := range n {
			c.Commit([]Write{{Key: []byte(fmt.Sprint("tx/fill-", from, "-", i)), Val: []byte("x")}}, from)
		}
	}
	fill(Generation-1, 2) // the newer generation is full: key moves to the older
	if val, _, ok := c.Lookup(key, 2); !ok || string(val) != "v1" {
		t.Fatalf("a generation later: %q, %v", val, ok)
	}
	c.Commit([]Write{{Key: key, Val: []byte("v3")}}, 3) // written again: back in the newer one
	fill(Generation-1, 4)
	if val, _, ok := c.Lookup(key, 4); !ok || string(val) != "v3" {
		t.Fatalf("written again, a generation later: %q, %v", val, ok)
	}
	if _, _, ok := c.Lookup(key, 2); ok {
		t.Fatal("an older reader was given a newer version")
	}
	fill(Generation, 5)
	if _, _, ok := c.Lookup(key, 5); ok {
		t.Fatal("still cached two generations later")
	}
	c.Wrote(key, 6)
	if _, _, ok := c.Lookup(key, 7); ok {
		t.Fatal("a pending write was readable")
	}
}

// A deletion removes the entry at the commit, and a write then a deletion in
// one batch leave none.
func TestRecent_Deletions(t *testing.T) {
	var c Recent
	key := []byte("job/1")
	c.Commit([]Write{{Key: key, Val: []byte("v1")}}, 1)
	c.Wrote(key, 2)
	c.Commit([]Write{{Key: key, Deleted: true}}, 2)
	if _, _, ok := c.Lookup(key, 2); ok {
		t.Fatal("a deleted key is cached")
	}
	c.Wrote(key, 3)
	c.Commit([]Write{{Key: key, Val: []byte("v3")}, {Key: key, Deleted: true}}, 3)
	if _, _, ok := c.Lookup(key, 3); ok {
		t.Fatal("a key written then deleted in one batch is cached")
	}
}

// A decoded record is kept only for the bytes it was decoded from.
func TestRecent_Decoded(t *testing.T) {
	var c Recent
	key := []byte("tx/1")
	v1 := []byte("v1")
	c.Commit([]Write{{Key: key, Val: v1}}, 1)
	c.Decoded(key, []byte("v1"), "from other bytes")
	if _, dec, _ := c.Lookup(key, 1); dec != nil {
		t.Fatalf("kept %v, decoded from other bytes", dec)
	}
	c.Decoded(key, v1, "one")
	if val, dec, ok := c.Lookup(key, 1); !ok || string(val) != "v1" || dec != "one" {
		t.Fatalf("Lookup: %q, %v, %v", val, dec, ok)
	}
	c.Wrote(key, 2)
	c.Decoded(key, v1, "one")
	c.Commit([]Write{{Key: key, Val: []byte("v2")}}, 2)
	if _, dec, _ := c.Lookup(key, 2); dec != nil {
		t.Fatalf("the new version has %v", dec)
	}
}
