package api

import "sync"

// bodyKey names a response that is fixed by the game version and deadline
// and the seat asking: the game detail or the legal actions.
type bodyKey struct {
	game, version, deadline int64
	seat                    int
	kind                    byte
}

// boundedCache is a map of at most max entries, safe for concurrent use,
// that forgets everything when full. Values must not be changed once put.
type boundedCache[K comparable, V any] struct {
	mu  sync.Mutex
	max int
	m   map[K]V
}

func newBoundedCache[K comparable, V any](max int) *boundedCache[K, V] {
	return &boundedCache[K, V]{max: max, m: make(map[K]V)}
}

func (c *boundedCache[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *boundedCache[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = v
}
