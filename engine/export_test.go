package engine

// NewLegacyGame makes a game as the engine made them before secrets, on
// setup.Seed alone: its shuffles and ids come from one PCG stream.
func NewLegacyGame(setup Setup) (*State, []Event, error) {
	setup.Secret = Secret{}
	return newGame(setup)
}

// CopiesAlike is PromptKind.copiesAlike.
func CopiesAlike(k PromptKind) bool { return k.copiesAlike() }

// ChosenLeft lists the tasks' chosen prompts: none outlives the Apply
// that answers, since a state read back from storage would not hold it.
func ChosenLeft(s *State) []string {
	var left []string
	for _, t := range s.Stack {
		if t.chosen != "" {
			left = append(left, t.chosen)
		}
	}
	return left
}
