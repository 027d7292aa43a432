package engine

import (
	"strconv"
)

// plural writes "1 card", "2 cards".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// joinNames writes the n names that name gives as "a", "a and b" or
// "a, b and c", with last for "and"; no names is "nobody".
func joinNames(n int, name func(i int) string, last string) string {
	switch n {
	case 0:
		return "nobody"
	case 1:
		return name(0)
	}
	var buf [128]byte
	b := buf[:0]
	for i := range n {
		switch i {
		case 0:
		case n - 1:
			b = append(append(append(b, ' '), last...), ' ')
		default:
			b = append(b, ", "...)
		}
		b = append(b, name(i)...)
	}
	return string(b)
}

// joinAnd writes "a, b and c".
func joinAnd(items []string) string {
	return joinNames(len(items), func(i int) string { return items[i] }, "and")
}

// joinOr writes "a, b or c".
func joinOr(items []string) string {
	return joinNames(len(items), func(i int) string { return items[i] }, "or")
}

// cardList names cards by id: "Krol, Krol and Data Lake".
func (s *State) cardList(ids []string) string {
	if len(ids) == 0 {
		return "no cards"
	}
	return joinNames(len(ids), func(i int) string { return s.card(ids[i]).Name }, "and")
}

// seatList names seats: "Ada, Bob and Cy".
func (s *State) seatList(seats []int) string {
	return joinNames(len(seats), func(i int) string { return s.name(seats[i]) }, "and")
}
