package models

import (
	"context"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// PlayerRating is a player's stored rating (see package rating). A player
// has none until their first rated game ends; until then the caller's
// initial rating stands for it.
type PlayerRating struct {
	UserID     int64
	Rating     float64
	Deviation  float64
	Volatility float64
	Games      int        // rated games finished
	Wins       int        // of those, the ones placed first (alone or shared)
	LastGameAt *time.Time // when the last rated game ended; nil: none
	UpdatedAt  time.Time
}

// TableName is the ratings table.
func (PlayerRating) TableName() string { return "ratings" }

// RatingChange is one player's line in the ratings of one rated game: their
// place and their rating before and after it.
type RatingChange struct {
	GameID           int64
	UserID           int64
	Seat             int
	Place            int // 0 first; equal places tied
	RatingBefore     float64
	DeviationBefore  float64
	VolatilityBefore float64
	RatingAfter      float64
	DeviationAfter   float64
	VolatilityAfter  float64
	CreatedAt        time.Time
}

// TableName is the rating_changes table.
func (RatingChange) TableName() string { return "rating_changes" }

// RatedGame is what a change that ends a rated game writes to the ratings,
// in its transaction: the game ends and its players' ratings move together,
// or neither happens.
type RatedGame struct {
	Players []RatedSeat // the people rated, at least two, in seat order
	// Initial is the rating of a player before their first rated game.
	Initial PlayerRating
	// Rate returns the players' ratings after the game (Rating, Deviation
	// and Volatility), in the order of Players, from their ratings before
	// it (of the rows, locked until the end of the transaction; Initial's
	// values for a first game).
	Rate func(before []PlayerRating) []PlayerRating
}

// RatedSeat is a person of a rated game, with their final place (0 first).
type RatedSeat struct {
	UserID int64
	Seat   int
	Place  int
}

// rate writes the ratings of game g, which r rates, in transaction tx: the
// players' rows, locked in the order of their ids (so that two games that
// end at once with players in common wait for each other instead of
// deadlocking), updated by r.Rate, and one RatingChange each. A game rated
// already gives ErrConflict: the changes' key is the game and the player.
func (s *Store) rate(tx *gorm.DB, g *Game, r *RatedGame) error {
	if len(r.Players) < 2 || r.Rate == nil {
		return nil
	}
	now := s.Now()
	ended := now
	if g.EndedAt != nil {
		ended = *g.EndedAt
	}
	ids := make([]int64, len(r.Players))
	for i, p := range r.Players {
		ids[i] = p.UserID
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	// A first game's row is inserted before it is read, so that a game
	// ending at once with the same newcomer waits for this one's row
	// instead of rating them from the initial values too.
	ins := insertRows(`ratings (user_id, rating, deviation, volatility, games, wins, updated_at)`, len(ids), func(i int) []any {
		return []any{ids[i], r.Initial.Rating, r.Initial.Deviation, r.Initial.Volatility, 0, 0, now}
	})
	if err := tx.Exec(ins.sql+` ON CONFLICT (user_id) DO NOTHING`, ins.args...).Error; err != nil {
		return err
	}
	var rows []PlayerRating
	if err := tx.Raw(`SELECT * FROM ratings WHERE user_id IN ? ORDER BY user_id`+s.forUpdate(), ids).Scan(&rows).Error; err != nil {
		return err
	}
	byID := make(map[int64]PlayerRating, len(rows))
	for _, row := range rows {
		byID[row.UserID] = row
	}
	before := make([]PlayerRating, len(r.Players))
	for i, p := range r.Players {
		row, ok := byID[p.UserID]
		if !ok {
			return fmt.Errorf("ratings: no row for user %d", p.UserID)
		}
		before[i] = row
	}
	after := r.Rate(slices.Clone(before))
	if len(after) != len(before) {
		return fmt.Errorf("ratings: %d ratings for %d players", len(after), len(before))
	}
	changes := make([]RatingChange, len(r.Players))
	for i, p := range r.Players {
		b, a := before[i], after[i]
		won := 0
		if p.Place == 0 {
			won = 1
		}
		if err := tx.Exec(qRate, a.Rating, a.Deviation, a.Volatility, won, ended, now, p.UserID).Error; err != nil {
			return err
		}
		changes[i] = RatingChange{GameID: g.ID, UserID: p.UserID, Seat: p.Seat, Place: p.Place,
			RatingBefore: b.Rating, DeviationBefore: b.Deviation, VolatilityBefore: b.Volatility,
			RatingAfter: a.Rating, DeviationAfter: a.Deviation, VolatilityAfter: a.Volatility, CreatedAt: now}
	}
	if err := tx.Create(&changes).Error; err != nil {
		if uniqueViolation(err) {
			return fmt.Errorf("game %d is rated already: %w", g.ID, ErrConflict)
		}
		return err
	}
	return nil
}

// qRate writes a player's rating after a rated game: one game more, one
// win more if they placed first.
const qRate = `
UPDATE ratings SET rating = ?, deviation = ?, volatility = ?, games = games + 1, wins = wins + ?,
  last_game_at = ?, updated_at = ?
WHERE user_id = ?`

// Rating returns the user's rating, or ErrNotFound for a user who has
// finished no rated game yet.
func (s *Store) Rating(ctx context.Context, userID int64) (*PlayerRating, error) {
	var r PlayerRating
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Take(&r).Error; err != nil {
		return nil, notFound(err)
	}
	return &r, nil
}

// RatingChanges returns the lines of the ratings of game id, in seat order
// (none for a game that is not rated, or not over).
func (s *Store) RatingChanges(ctx context.Context, gameID int64) ([]RatingChange, error) {
	var out []RatingChange
	err := s.db.WithContext(ctx).Where("game_id = ?", gameID).Order("seat").Find(&out).Error
	return out, err
}
