package api

// bodyKey names a response that is fixed by the game version and deadline
// and the seat asking: the game detail or the legal actions.
type bodyKey struct {
	game, version, deadline int64
	seat                    int
	kind                    byte
}
