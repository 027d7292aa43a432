// Package bounded is a map of at most a given number of entries, safe for
// concurrent use, that forgets everything when full: the cache of values
// that are cheap to make again and never change once made (an encoded
// response of a game's version, an access token verified).
package bounded

import "sync"

// Cache is a map of at most Max entries. Values must not be changed once
// put. Build it with New.
type Cache[K comparable, V any] struct {
	mu  sync.Mutex
	max int
	m   map[K]V
}

// New returns a cache of at most max entries (a max below 1 keeps none).
func New[K comparable, V any](max int) *Cache[K, V] {
	return &Cache[K, V]{max: max, m: make(map[K]V)}
}

// Get returns the value put under k, if the cache still holds it.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

// Put keeps v under k; a full cache forgets every entry first.
func (c *Cache[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.max < 1 {
		return
	}
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = v
}
