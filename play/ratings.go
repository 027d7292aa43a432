package play

import (
	"context"
	"errors"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/rating"
)

// Rated reports whether g is rated: every seat was a person's from the
// start. A game with a seat the service's bot played from the start is a
// practice game: a bot's results say nothing of a person, and in a game of
// three or four a bot decides between the people too. A seat the bot took
// over after its player's timeouts does not unrate the game: that player
// loses (see ratedGame).
func Rated(g *models.Game) bool {
	if len(g.Seats) < engine.MinPlayers {
		return false
	}
	for _, s := range g.Seats {
		if s.Bot == models.BotFromStart || s.UserID == nil {
			return false
		}
	}
	return true
}

// ratedGame is what the change that ends g, with st at its end, writes to
// the ratings (nil for a game that is not Rated). Each person is placed
// by engine.Ranks, but for those who left: a seat that resigned (by
// itself or forfeited for its timeouts) or that the bot played at the end
// (taken over for its timeouts, not taken back) counts as a loss, placed
// after every seat its player finished, sharing the last place with the
// others who left. The update is rating.Default's Table over every pair of
// players, from their ratings before the game, each grown first by the
// idle weeks since its player's last rated game (rating.IdlePeriods).
func ratedGame(g *models.Game, st *engine.State, ended time.Time) *models.RatedGame {
	if !Rated(g) || len(st.Players) != len(g.Seats) {
		return nil
	}
	ps := places(g, st)
	r := &models.RatedGame{Initial: storedRating(rating.Default.Initial)}
	for i, s := range g.Seats {
		r.Players = append(r.Players, models.RatedSeat{UserID: *s.UserID, Seat: s.SeatNo, Place: ps[i]})
	}
	r.Rate = func(before []models.PlayerRating) []models.PlayerRating {
		rs := make([]rating.Rating, len(before))
		for i, b := range before {
			rs[i] = rating.Rating{Rating: b.Rating, Deviation: b.Deviation, Volatility: b.Volatility}
			if b.LastGameAt != nil {
				rs[i] = rating.Default.Idle(rs[i], rating.IdlePeriods(*b.LastGameAt, ended))
			}
		}
		out := make([]models.PlayerRating, len(before))
		for i, a := range rating.Default.Table(rs, ps) {
			out[i] = storedRating(a)
		}
		return out
	}
	return r
}

// places returns each seat's place in the ratings of g, over with st (0
// first): engine.Ranks for the seats their players finished, and the last
// place, shared, for those who left (resigned, forfeited, or played by the
// bot at the end after their player's timeouts).
func places(g *models.Game, st *engine.State) []int {
	ranks := engine.Ranks(st)
	left := make([]bool, len(ranks))
	for i := range left {
		left[i] = st.Players[i].Resigned || i < len(g.Seats) && g.Seats[i].Bot == models.BotTakeover
	}
	out := make([]int, len(ranks))
	for i := range ranks {
		for j := range ranks {
			if left[i] && !left[j] || !left[i] && !left[j] && ranks[j] < ranks[i] {
				out[i]++
			}
		}
	}
	return out
}

func storedRating(r rating.Rating) models.PlayerRating {
	return models.PlayerRating{Rating: r.Rating, Deviation: r.Deviation, Volatility: r.Volatility}
}

// PlayerRating is a player's rating with their rated games and wins.
type PlayerRating struct {
	rating.Rating
	Games int // rated games finished
	Wins  int // of those, placed first (alone or shared)
}

// RatingOf returns user uid's rating: rating.Default's initial one (1500 ±
// 350, provisional) until their first rated game ends.
func (s *Service) RatingOf(ctx context.Context, uid int64) (PlayerRating, error) {
	r, err := s.store.Rating(ctx, uid)
	if errors.Is(err, models.ErrNotFound) {
		return PlayerRating{Rating: rating.Default.Initial}, nil
	}
	if err != nil {
		return PlayerRating{}, err
	}
	return PlayerRating{Rating: rating.Rating{Rating: r.Rating, Deviation: r.Deviation, Volatility: r.Volatility},
		Games: r.Games, Wins: r.Wins}, nil
}

// NearRatingWithin is how far from a rating the lobby looks for open games
// by default: a little more than a settled player's RD on either side.
const NearRatingWithin = 200

// NearRating makes f, a filter of the open games, keep those whose seated
// players' mean rating is within within of r, a player with no rated game
// counting at the initial rating.
func NearRating(f *models.GameFilter, r, within float64) {
	f.Near, f.Within, f.Unrated = &r, within, rating.Default.Initial.Rating
}
