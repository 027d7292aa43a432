package play

import (
	"slices"
	"sync"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/bounded"
	"github.com/datamonsters/turns/models"
)

// stateCache keeps the engine state of recently changed games, parsed, so
// that the next change of a game, or the next read of its detail, need not
// decode its snapshot. An entry is valid only for the version it was
// stored with. A change takes a state out (under the game's row lock) and
// puts the new state back once its result is done with (Result.Done); a
// read takes one and puts it back once it has built what it answers
// (Read), so no two callers ever share a state. Beside its states an
// entry may hold the game's row at its version (keepGame), so that a read
// that knows the version and deadline already (ReadAt) makes no query. An
// entry holds up to
// maxFree states of its version, so that readers of one game at once
// each take one instead of decoding the snapshot again: the first
// decodes it and puts its copy beside the other when it is done.
type stateCache struct {
	mu sync.Mutex // guards the slots' fields
	m  *bounded.Map[int64, *stateSlot]
}

// stateSlot is a game's entry: the states of its version that no caller
// holds, changed only under the cache's lock.
type stateSlot struct {
	version int64
	free    []*engine.State
	// game is the game's row at version, without its snapshot, as the
	// change that made the version left it or a read found it; nil when
	// neither did here. Nobody changes it: game hands out copies.
	game *models.Game
}

// maxFree is how many states of one version an entry keeps: the readers
// of one game at the same moment, as many as there are at most, the
// bench's and a table's (two players and a spectator or two).
const maxFree = 3

func newStateCache(max int) *stateCache {
	return &stateCache{m: bounded.New[int64, *stateSlot](max)}
}

// take removes a state of the game's entry and returns it if the entry
// is of version; nil if not, or if every state of it is held.
func (c *stateCache) take(id, version int64) *engine.State {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m.Get(id)
	if !ok || e.version != version || len(e.free) == 0 {
		return nil
	}
	n := len(e.free) - 1
	st := e.free[n]
	e.free[n] = nil
	e.free = e.free[:n]
	return st
}

// version returns the version of the game's entry, or 0 for none; its
// states may all be held.
func (c *stateCache) version(id int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m.Get(id); ok {
		return e.version
	}
	return 0
}

// put gives back (or stores) a state of the game at version, unless it is
// nil or the cache holds a later version (put back by a request that read
// an earlier one while a change moved the game on). A later version than
// the entry's replaces it and its states.
func (c *stateCache) put(id, version int64, st *engine.State) {
	if st == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m.Get(id)
	switch {
	case ok && e.version > version:
		return
	case ok && e.version == version:
		if len(e.free) >= maxFree || slices.Contains(e.free, st) {
			return
		}
		e.free = append(e.free, st)
	default:
		e = &stateSlot{version: version, free: []*engine.State{st}}
	}
	c.m.Put(id, e) // the entry read last is the last to be forgotten
}

// keepGame records row (models.Store.Row) as its entry's game, if the
// entry is of the row's version.
func (c *stateCache) keepGame(row *models.Game) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m.Get(row.ID); ok && e.version == row.Version {
		e.game = row
	}
}

// game returns a copy of the row of game id that its entry holds, if the
// entry is of version and the row's deadline is deadline (a deadline moves
// without a new version); nil if not.
func (c *stateCache) game(id, version int64, deadline *time.Time) *models.Game {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m.Get(id)
	if !ok || e.version != version || e.game == nil || !sameInstant(e.game.DeadlineAt, deadline) {
		return nil
	}
	row := *e.game
	row.Seats = slices.Clone(row.Seats)
	return &row
}

// sameInstant says whether a and b are both nil or the same instant.
func sameInstant(a, b *time.Time) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Equal(*b))
}
