package web

import "github.com/datamonsters/turns/internal/bounded"

// NoBoardCacheForTest makes every board be read from the play path, for
// the benchmark of an uncached board.
func (p *Pages) NoBoardCacheForTest() { p.boards = bounded.New[boardKey, *boardView](0) }
