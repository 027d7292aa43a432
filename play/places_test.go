package play

import (
	"fmt"
	"slices"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// TestPlaces: the ratings place the seats their players finished by the
// rules, and those who left (resigned, or played by the bot at the end
// after their timeouts) last, together, whatever their points.
func TestPlaces(t *testing.T) {
	position := func(t *testing.T, resign ...int) *engine.State {
		t.Helper()
		y := `name: places
cards:
  - {id: t-ch1, name: Small Project, type: challenge, tech: 1, points: 1}
  - {id: t-ch3, name: Medium Project, type: challenge, tech: 2, sci: 1, points: 3}
  - {id: t-ch5, name: Big Project, type: challenge, tech: 3, sci: 3, points: 5, hard: true}
  - {id: t-a, name: Card A, type: hack, effects: [{trigger: play, do: [{op: draw, n: 1}]}]}
players:
  - {name: Ana, ranking: [t-ch5], deck: [t-a, t-a, t-a, t-a]}
  - {name: Ben, ranking: [t-ch3], deck: [t-a, t-a, t-a, t-a]}
  - {name: Cy, ranking: [t-ch1], deck: [t-a, t-a, t-a, t-a]}
  - {name: Di, deck: [t-a, t-a, t-a, t-a]}
market: [t-ch1]
challenge_deck: [t-ch3]
steps:
`
		for _, s := range resign {
			y += fmt.Sprintf("  - {do: resign, seat: %d}\n", s)
		}
		res, err := engine.RunScenario([]byte(y))
		if err != nil || res.Failed() {
			t.Fatalf("scenario: %v %v", err, res.Failures)
		}
		return res.State
	}
	seats := func(takenOver ...int) *models.Game {
		g := &models.Game{}
		for i := range 4 {
			uid := int64(i + 1)
			s := models.Seat{SeatNo: i, UserID: &uid}
			if slices.Contains(takenOver, i) {
				s.Bot = models.BotTakeover
			}
			g.Seats = append(g.Seats, s)
		}
		return g
	}
	for _, c := range []struct {
		name      string
		resign    []int
		takenOver []int
		want      []int
	}{
		{"by points", nil, nil, []int{0, 1, 2, 3}},
		{"a resigned seat is last", []int{0}, nil, []int{3, 0, 1, 2}},
		{"a seat the bot plays at the end is last", nil, []int{0}, []int{3, 0, 1, 2}},
		{"those who left share the last place", []int{1}, []int{0}, []int{2, 2, 0, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := places(seats(c.takenOver...), position(t, c.resign...)); !slices.Equal(got, c.want) {
				t.Errorf("places %v, want %v", got, c.want)
			}
		})
	}
}

func TestRated(t *testing.T) {
	uid := int64(1)
	person := models.Seat{UserID: &uid}
	for _, c := range []struct {
		name  string
		seats []models.Seat
		want  bool
	}{
		{"people only", []models.Seat{person, person, person}, true},
		{"a seat the bot took over", []models.Seat{person, {UserID: &uid, Bot: models.BotTakeover}}, true},
		{"a bot seat from the start", []models.Seat{person, person, {Bot: models.BotFromStart}}, false},
		{"one seat", []models.Seat{person}, false},
	} {
		if got := Rated(&models.Game{Seats: c.seats}); got != c.want {
			t.Errorf("%s: rated %v, want %v", c.name, got, c.want)
		}
	}
}
