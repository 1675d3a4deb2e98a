package state

// window is a map of at most max entries that forgets the least recently
// used one when full: the state model's bounded memory.
//
// Its entries live in one slice, linked by index from the most recently
// used to the least, and the map gives each key's index. The proxy's
// collector marks every window at every cycle, and a list of its own
// element and entry per key (container/list) held twice the pointers for
// it to follow (docs/performance-log.md, "What the proxy's tail follows").
type window[V any] struct {
	max        int
	nodes      []node[V]
	index      map[string]int32
	head, tail int32 // most and least recently used; none when empty
	free       int32 // first of the nodes removed, linked by next; none when empty
}

// none marks the end of a chain of nodes.
const none = -1

type node[V any] struct {
	key        string
	val        V
	prev, next int32
}

func newWindow[V any](max int) *window[V] {
	return &window[V]{max: max, index: map[string]int32{}, head: none, tail: none, free: none}
}

// get returns the value of key and marks it used.
func (w *window[V]) get(key string) (V, bool) {
	i, ok := w.index[key]
	if !ok {
		var zero V
		return zero, false
	}
	w.unlink(i)
	w.pushFront(i)
	return w.nodes[i].val, true
}

// put sets the value of key, forgetting the least recently used entry when
// the window is full.
func (w *window[V]) put(key string, val V) {
	if i, ok := w.index[key]; ok {
		w.nodes[i].val = val
		w.unlink(i)
		w.pushFront(i)
		return
	}
	if w.max <= 0 {
		return
	}
	var i int32
	switch {
	case w.free != none:
		i, w.free = w.free, w.nodes[w.free].next
	case len(w.nodes) < w.max:
		w.nodes = append(w.nodes, node[V]{})
		i = int32(len(w.nodes) - 1)
	default: // full: the least recently used entry's node is the new one's
		i = w.tail
		w.unlink(i)
		delete(w.index, w.nodes[i].key)
	}
	w.nodes[i] = node[V]{key: key, val: val}
	w.index[key] = i
	w.pushFront(i)
}

// remove forgets key.
func (w *window[V]) remove(key string) {
	i, ok := w.index[key]
	if !ok {
		return
	}
	w.unlink(i)
	delete(w.index, key)
	w.nodes[i] = node[V]{next: w.free} // drops the key and value for the collector
	w.free = i
}

// len is the number of entries held.
func (w *window[V]) len() int { return len(w.index) }

// unlink takes node i out of the chain from head to tail.
func (w *window[V]) unlink(i int32) {
	n := &w.nodes[i]
	if n.prev == none {
		w.head = n.next
	} else {
		w.nodes[n.prev].next = n.next
	}
	if n.next == none {
		w.tail = n.prev
	} else {
		w.nodes[n.next].prev = n.prev
	}
}

// pushFront puts node i at the head of the chain.
func (w *window[V]) pushFront(i int32) {
	n := &w.nodes[i]
	n.prev, n.next = none, w.head
	if w.head != none {
		w.nodes[w.head].prev = i
	}
	w.head = i
	if w.tail == none {
		w.tail = i
	}
}
