package state

import "container/list"

// window is a map of at most max entries that forgets the least recently
// used one when full: the state model's bounded memory.
type window[V any] struct {
	max     int
	order   *list.List // front = most recently used; values are *entry[V]
	entries map[string]*list.Element
}

type entry[V any] struct {
	key string
	val V
}

func newWindow[V any](max int) *window[V] {
	return &window[V]{max: max, order: list.New(), entries: map[string]*list.Element{}}
}

// get returns the value of key and marks it used.
func (w *window[V]) get(key string) (V, bool) {
	e, ok := w.entries[key]
	if !ok {
		var zero V
		return zero, false
	}
	w.order.MoveToFront(e)
	return e.Value.(*entry[V]).val, true
}

// put sets the value of key, forgetting the least recently used entry when
// the window is full.
func (w *window[V]) put(key string, val V) {
	if e, ok := w.entries[key]; ok {
		e.Value.(*entry[V]).val = val
		w.order.MoveToFront(e)
		return
	}
	w.entries[key] = w.order.PushFront(&entry[V]{key: key, val: val})
	for w.order.Len() > w.max {
		last := w.order.Back()
		w.order.Remove(last)
		delete(w.entries, last.Value.(*entry[V]).key)
	}
}

// remove forgets key.
func (w *window[V]) remove(key string) {
	if e, ok := w.entries[key]; ok {
		w.order.Remove(e)
		delete(w.entries, key)
	}
}

// len is the number of entries held.
func (w *window[V]) len() int { return w.order.Len() }
