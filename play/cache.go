package play

import (
	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/bounded"
)

// stateCache keeps the engine state of recently changed games, parsed, so
// that the next change of a game, or the next read of its detail, need not
// decode its snapshot. An entry is valid only for the version it was
// stored with. A change takes it out (under the game's row lock) and puts
// the new state back once its result is done with (Result.Done); a read
// takes it and puts it back once it has built what it answers (Read), so
// no two callers ever share a state.
type stateCache struct {
	m *bounded.Map[int64, cachedState]
}

type cachedState struct {
	version int64
	st      *engine.State
}

func newStateCache(max int) *stateCache {
	return &stateCache{bounded.New[int64, cachedState](max)}
}

// take removes the game's entry and returns its state if it is of version.
func (c *stateCache) take(id, version int64) *engine.State {
	if e, ok := c.m.Take(id); ok && e.version == version {
		return e.st
	}
	return nil
}

// version returns the version of the game's entry, or 0 for none.
func (c *stateCache) version(id int64) int64 {
	e, _ := c.m.Get(id)
	return e.version
}

// put stores the state of the game at version, unless it is nil or the
// cache holds a later version (put back by a request that read an earlier
// one while a change moved the game on).
func (c *stateCache) put(id, version int64, st *engine.State) {
	if st != nil {
		c.m.PutUnless(id, cachedState{version, st}, func(old, _ cachedState) bool { return old.version > version })
	}
}
