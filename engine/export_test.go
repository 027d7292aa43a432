package engine

// NewLegacyGame makes a game as the engine made them before secrets, on
// setup.Seed alone: its shuffles and ids come from one PCG stream.
func NewLegacyGame(setup Setup) (*State, []Event, error) {
	setup.Secret = Secret{}
	return newGame(setup)
}

// CopiesAlike is PromptKind.copiesAlike.
func CopiesAlike(k PromptKind) bool { return k.copiesAlike() }
