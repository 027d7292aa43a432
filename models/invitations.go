package models

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// EmailInvitation is an invitation to a game sent to an address, for
// someone who may have no account yet (see migration 0018). Email is as
// typed and compared in lower case. AcceptedBy is the user who took a seat
// with it; nil while nobody has.
type EmailInvitation struct {
	ID         int64
	GameID     int64
	Email      string
	InvitedBy  int64
	CreatedAt  time.Time
	ExpiresAt  time.Time
	AcceptedBy *int64
	AcceptedAt *time.Time
}

// TableName is the email_invitations table.
func (EmailInvitation) TableName() string { return "email_invitations" }

// qClaimInvitation marks an invitation as accepted by a user, unless
// another user accepted it already (the same user may claim it again).
const qClaimInvitation = `
UPDATE email_invitations SET accepted_by = ?, accepted_at = ?
WHERE id = ? AND (accepted_by IS NULL OR accepted_by = ?)`

// qReleaseInvitation gives back an invitation that a user claimed but
// could not take a seat with.
const qReleaseInvitation = `
UPDATE email_invitations SET accepted_by = NULL, accepted_at = NULL WHERE id = ? AND accepted_by = ?`

// CreateInvitation stores an invitation of inv.Email to inv.GameID. An
// address already invited to the game gives ErrConflict.
func (s *Store) CreateInvitation(ctx context.Context, inv *EmailInvitation) error {
	inv.CreatedAt = s.Now()
	inv.ExpiresAt = inv.ExpiresAt.UTC().Truncate(time.Microsecond)
	err := s.db.WithContext(ctx).Create(inv).Error
	if uniqueViolation(err) {
		return fmt.Errorf("%s is invited already: %w", inv.Email, ErrConflict)
	}
	return err
}

// Invitation returns the invitation id, or ErrNotFound.
func (s *Store) Invitation(ctx context.Context, id int64) (*EmailInvitation, error) {
	var inv EmailInvitation
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&inv).Error; err != nil {
		return nil, notFound(err)
	}
	return &inv, nil
}

// InvitationsOf returns the game's invitations by address, oldest first.
func (s *Store) InvitationsOf(ctx context.Context, gameID int64) ([]EmailInvitation, error) {
	var out []EmailInvitation
	err := s.db.WithContext(ctx).Where("game_id = ?", gameID).Order("id").Find(&out).Error
	return out, err
}

// ClaimInvitation marks invitation id as accepted by userID, before the
// user takes a seat with it (ReleaseInvitation gives it back if they
// cannot). An invitation another user accepted gives ErrConflict; one
// userID accepted before is claimed again.
func (s *Store) ClaimInvitation(ctx context.Context, id, userID int64) error {
	res := s.db.WithContext(ctx).Exec(qClaimInvitation, userID, s.Now(), id, userID)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("invitation %d: accepted by someone else: %w", id, ErrConflict)
	}
	return nil
}

// ReleaseInvitation undoes ClaimInvitation of userID.
func (s *Store) ReleaseInvitation(ctx context.Context, id, userID int64) error {
	return s.db.WithContext(ctx).Exec(qReleaseInvitation, id, userID).Error
}

// NormalEmail is an address as invitations compare it: trimmed, in lower
// case.
func NormalEmail(addr string) string { return strings.ToLower(strings.TrimSpace(addr)) }

// qLatestEvents reads the last events of a game, newest first.
const qLatestEvents = `
SELECT game_id, seq, version, body, created_at FROM events
WHERE game_id = ? ORDER BY seq DESC LIMIT ?`

// LatestEvents returns the game's last limit events, in order (oldest
// first).
func (s *Store) LatestEvents(ctx context.Context, gameID int64, limit int) ([]EventRecord, error) {
	var out []EventRecord
	if err := s.db.WithContext(ctx).Raw(qLatestEvents, gameID, limit).Scan(&out).Error; err != nil {
		return nil, err
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
