// Package bounded holds Map, the one bounded cache of the service: a map
// of at most a fixed number of entries, safe for concurrent use, that
// forgets its oldest entry first. The API keeps its encoded answers and
// verified tokens in it, play its parsed game states and replays, the
// pages their drawn boards and event logs, the notifier the states its
// changes left.
package bounded

import "sync"

// Map is a map of at most Max entries; when full, a Put forgets the entry
// put longest ago. A Map made with New is ready; a max of 0 or less keeps
// nothing. Values are handed out as they are: what a caller puts or gets
// must not be changed afterwards (put copies, or immutable values).
type Map[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	m     map[K]entry[V]
	order []put[K] // the puts, oldest first; an entry's latest put is the one whose seq it holds
	seq   uint64
}

type entry[V any] struct {
	v   V
	seq uint64
}

type put[K comparable] struct {
	k   K
	seq uint64
}

// New returns a Map of at most max entries.
func New[K comparable, V any](max int) *Map[K, V] {
	return &Map[K, V]{max: max, m: make(map[K]entry[V])}
}

// Get returns the value of k, if there is one.
func (c *Map[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	return e.v, ok
}

// Take removes k's entry and returns its value, if there was one.
func (c *Map[K, V]) Take(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	delete(c.m, k)
	return e.v, ok
}

// Put sets the value of k.
func (c *Map[K, V]) Put(k K, v V) { c.PutUnless(k, v, nil) }

// PutUnless sets the value of k, unless k has a value already and keep
// (if not nil) says it stays: keep is called with the old value and the
// new one, under the Map's lock. It reports whether v was put.
func (c *Map[K, V]) PutUnless(k K, v V, keep func(old, new V) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.max <= 0 {
		return false
	}
	if old, ok := c.m[k]; ok && keep != nil && keep(old.v, v) {
		return false
	}
	c.seq++
	c.m[k] = entry[V]{v, c.seq}
	c.order = append(c.order, put[K]{k, c.seq})
	for len(c.m) > c.max {
		first := c.order[0]
		c.order = c.order[1:]
		if e, ok := c.m[first.k]; ok && e.seq == first.seq {
			delete(c.m, first.k)
		}
	}
	// The puts of entries replaced or taken since stay in order until
	// they come first; when they outnumber the entries, they go at once.
	if len(c.order) > 2*c.max+16 {
		kept := c.order[:0]
		for _, p := range c.order {
			if e, ok := c.m[p.k]; ok && e.seq == p.seq {
				kept = append(kept, p)
			}
		}
		clear(c.order[len(kept):])
		c.order = kept
	}
	return true
}

// Len is the number of entries.
func (c *Map[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
