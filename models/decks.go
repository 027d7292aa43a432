package models

import (
	"context"
	"encoding/json"
	"time"

	"github.com/datamonsters/turns/engine"
)

// Deck is a user's custom deck. Cards is the deck list as JSON (an array of
// {"card","count"} entries); the store does not interpret it.
type Deck struct {
	ID        int64
	UserID    int64
	Name      string
	Cards     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// TableName is the decks table.
func (Deck) TableName() string { return "decks" }

// List decodes the deck list, named after the deck.
func (d *Deck) List() (engine.Deck, error) {
	out := engine.Deck{Name: d.Name}
	err := json.Unmarshal([]byte(d.Cards), &out.Cards)
	return out, err
}

// CreateDeck stores a new deck.
func (s *Store) CreateDeck(ctx context.Context, d *Deck) error {
	now := s.Now()
	d.CreatedAt, d.UpdatedAt = now, now
	return s.db.WithContext(ctx).Create(d).Error
}

// Deck returns the user's deck id, or ErrNotFound (also for another user's
// deck).
func (s *Store) Deck(ctx context.Context, userID, id int64) (*Deck, error) {
	var d Deck
	if err := s.db.WithContext(ctx).Where("id = ? AND user_id = ?", id, userID).Take(&d).Error; err != nil {
		return nil, notFound(err)
	}
	return &d, nil
}

// Decks lists the user's decks with id > after, oldest first, at most limit.
func (s *Store) Decks(ctx context.Context, userID, after int64, limit int) ([]Deck, error) {
	var out []Deck
	err := s.db.WithContext(ctx).Where("user_id = ? AND id > ?", userID, after).Order("id").Limit(limit).Find(&out).Error
	return out, err
}

// UpdateDeck replaces the name and cards of the user's deck.
func (s *Store) UpdateDeck(ctx context.Context, d *Deck) error {
	d.UpdatedAt = s.Now()
	res := s.db.WithContext(ctx).Exec(`UPDATE decks SET name = ?, cards = ?, updated_at = ? WHERE id = ? AND user_id = ?`,
		d.Name, d.Cards, d.UpdatedAt, d.ID, d.UserID)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return s.db.WithContext(ctx).Where("id = ?", d.ID).Take(d).Error
}

// DeleteDeck deletes the user's deck.
func (s *Store) DeleteDeck(ctx context.Context, userID, id int64) error {
	res := s.db.WithContext(ctx).Exec(`DELETE FROM decks WHERE id = ? AND user_id = ?`, id, userID)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrNotFound
	}
	return nil
}
