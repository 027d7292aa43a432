package api

import (
	"sync"

	"github.com/datamonsters/turns/engine"
)

// stateCache keeps the engine state of recently changed games, parsed, so
// that the next submission to a game, or the next read of its detail, need
// not decode its snapshot. An entry is valid only for the version it was
// stored with. A request takes it out (a submission under the game's row
// lock) and puts a state back once its response is encoded (a submission
// the new one), so no two requests ever share a state.
type stateCache struct {
	mu  sync.Mutex
	max int
	m   map[int64]cachedState
}

type cachedState struct {
	version int64
	st      *engine.State
}

func newStateCache(max int) *stateCache {
	return &stateCache{max: max, m: make(map[int64]cachedState)}
}

// take removes the game's entry and returns its state if it is of version.
func (c *stateCache) take(id, version int64) *engine.State {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	delete(c.m, id)
	if !ok || e.version != version {
		return nil
	}
	return e.st
}

// version returns the version of the game's entry, or 0 for none.
func (c *stateCache) version(id int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[id].version
}

// put stores the state of the game at version, unless it is nil or the
// cache holds a later version (put back by a request that read an earlier
// one while a submission moved the game on).
func (c *stateCache) put(id, version int64, st *engine.State) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[id]; st == nil || ok && e.version > version {
		return
	}
	if len(c.m) >= c.max {
		for k := range c.m { // drop an arbitrary entry
			delete(c.m, k)
			break
		}
	}
	c.m[id] = cachedState{version, st}
}

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
