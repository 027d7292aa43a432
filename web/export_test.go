package web

// NoBoardCacheForTest makes every board be read from the play path, for
// the benchmark of an uncached board.
func (p *Pages) NoBoardCacheForTest() { p.boards.max, p.boards.m = 0, nil }
