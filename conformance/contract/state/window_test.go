package state

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// naiveLRU is the window's meaning written plainly: keys from the most
// recently used to the least.
type naiveLRU struct {
	max  int
	keys []string
	vals map[string]int
}

func (n *naiveLRU) touch(key string) {
	n.keys = slices.Insert(slices.DeleteFunc(n.keys, func(k string) bool { return k == key }), 0, key)
}

func (n *naiveLRU) get(key string) (int, bool) {
	v, ok := n.vals[key]
	if ok {
		n.touch(key)
	}
	return v, ok
}

func (n *naiveLRU) put(key string, v int) {
	if n.max <= 0 {
		return
	}
	n.vals[key] = v
	n.touch(key)
	for len(n.keys) > n.max {
		delete(n.vals, n.keys[len(n.keys)-1])
		n.keys = n.keys[:len(n.keys)-1]
	}
}

func (n *naiveLRU) remove(key string) {
	delete(n.vals, key)
	n.keys = slices.DeleteFunc(n.keys, func(k string) bool { return k == key })
}

// order walks the window from its most recently used entry to its least.
func (w *window[V]) order() []string {
	var keys []string
	for i := w.head; i != none; i = w.nodes[i].next {
		keys = append(keys, w.nodes[i].key)
	}
	return keys
}

func TestWindow_ForgetsLeastRecentlyUsed(t *testing.T) {
	w := newWindow[int](3)
	w.put("a", 1)
	w.put("b", 2)
	w.put("c", 3)
	if v, ok := w.get("a"); !ok || v != 1 {
		t.Fatalf("get a = %d, %v", v, ok)
	}
	w.put("d", 4) // b is the least recently used now
	if _, ok := w.get("b"); ok {
		t.Fatal("b kept past the bound")
	}
	w.put("c", 30)
	if got := w.order(); !slices.Equal(got, []string{"c", "d", "a"}) {
		t.Fatalf("order %v", got)
	}
	w.remove("d")
	w.put("e", 5)
	w.put("f", 6) // a goes
	if got := w.order(); !slices.Equal(got, []string{"f", "e", "c"}) || w.len() != 3 {
		t.Fatalf("order %v, len %d", got, w.len())
	}
	if v, _ := w.get("c"); v != 30 {
		t.Fatalf("c = %d", v)
	}
	if len(w.nodes) != 3 {
		t.Fatalf("%d nodes for 3 entries: a removed node was not reused", len(w.nodes))
	}
}

func TestWindow_NoRoom(t *testing.T) {
	w := newWindow[int](0)
	w.put("a", 1)
	if _, ok := w.get("a"); ok || w.len() != 0 {
		t.Fatal("a window of 0 entries kept one")
	}
}

// The window against its plain meaning, over random operations on few keys.
func TestWindow_AsNaiveLRU(t *testing.T) {
	for _, max := range []int{1, 2, 5, 16} {
		rng := rand.New(rand.NewPCG(uint64(max), 7))
		w, n := newWindow[int](max), &naiveLRU{max: max, vals: map[string]int{}}
		for step := range 5000 {
			key := strconv.Itoa(rng.IntN(3 * max))
			switch op := rng.IntN(4); op {
			case 0, 1:
				w.put(key, step)
				n.put(key, step)
			case 2:
				v, ok := w.get(key)
				nv, nok := n.get(key)
				if v != nv || ok != nok {
					t.Fatalf("max %d step %d: get %s = %d, %v; want %d, %v", max, step, key, v, ok, nv, nok)
				}
			case 3:
				w.remove(key)
				n.remove(key)
			}
			if got := w.order(); !slices.Equal(got, n.keys) || w.len() != len(n.keys) {
				t.Fatalf("max %d step %d: order %v (len %d), want %v", max, step, got, w.len(), n.keys)
			}
		}
	}
}
