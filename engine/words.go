package engine

import (
	"strconv"
	"strings"
)

// plural writes "1 card", "2 cards".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func joinWith(items []string, last string) string {
	switch len(items) {
	case 0:
		return "nobody"
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + last + " " + items[len(items)-1]
}

// joinAnd writes "a, b and c".
func joinAnd(items []string) string { return joinWith(items, "and") }

// joinOr writes "a, b or c".
func joinOr(items []string) string { return joinWith(items, "or") }

// cardList names cards by id: "Krol, Krol and Data Lake".
func (s *State) cardList(ids []string) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = s.card(id).Name
	}
	if len(names) == 0 {
		return "no cards"
	}
	return joinAnd(names)
}
