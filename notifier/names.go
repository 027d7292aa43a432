package notifier

// KindNames is Kinds as strings, in their order: the kinds a player
// chooses among in their preferences (accounts.Config.Kinds, beside
// Channels).
func KindNames() []string {
	out := make([]string, len(Kinds))
	for i, k := range Kinds {
		out[i] = string(k)
	}
	return out
}
