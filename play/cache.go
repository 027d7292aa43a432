package play

import (
	"sync"

	"github.com/datamonsters/turns/engine"
)

// stateCache keeps the engine state of recently changed games, parsed, so
// that the next change of a game, or the next read of its detail, need not
// decode its snapshot. An entry is valid only for the version it was
// stored with. A change takes it out (under the game's row lock) and puts
// the new state back once its result is done with (Result.Done); a read
// takes it and puts it back once it has built what it answers (Read), so
// no two callers ever share a state.
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
// one while a change moved the game on).
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
