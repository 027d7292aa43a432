package accounts

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
)

// The calendar feed: a player's running deadlines as an iCalendar feed at
// a private address, for their calendar app to subscribe to. The address
// carries a token that is an HMAC of the user and a nonce under the
// feeds' key (derived from the secret): the database keeps the token's
// SHA-256 and the nonce, never the token, and the token can be shown
// again. A new nonce renews the address (the old one is no feed's from
// then on); deleting the row revokes it.

// The address of a feed is FeedPath, its token and FeedSuffix (the API
// serves it).
const (
	FeedPath   = "/v1/calendar/"
	FeedSuffix = ".ics"
	feedPrefix = "dmc_"
)

// Feed is a player's calendar feed: its token, the credential in its
// address, and when it was made.
type Feed struct {
	Token     string
	CreatedAt time.Time
}

// URL is the feed's address on the service at base ("https://dm.example").
func (f Feed) URL(base string) string {
	return strings.TrimRight(base, "/") + FeedPath + f.Token + FeedSuffix
}

// WebcalURL is URL with the webcal scheme, which a calendar app opens to
// subscribe.
func (f Feed) WebcalURL(base string) string {
	u := f.URL(base)
	if i := strings.Index(u, "://"); i >= 0 {
		return "webcal" + u[i:]
	}
	return u
}

// ErrFeedKeyChanged is a feed whose token cannot be made again: the
// secret changed since it was made. Its address still works, but only a
// new one can be shown.
var ErrFeedKeyChanged = refusal.New(refusal.NotFound, "not_found", "the calendar feed's address can no longer be shown (the secret changed)")

// feedKey is the key of the feed tokens, derived from the secret.
func feedKey(secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("datamonsters calendar feeds"))
	return m.Sum(nil)
}

// feedToken is the token of user uid's feed made from nonce.
func (s *Service) feedToken(uid int64, nonce string) string {
	m := hmac.New(sha256.New, s.feedKey)
	m.Write([]byte(strconv.FormatInt(uid, 10) + "\x00" + nonce))
	return feedPrefix + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// CalendarFeed returns user userID's feed: models.ErrNotFound when they
// have none, ErrFeedKeyChanged when its token cannot be shown.
func (s *Service) CalendarFeed(ctx context.Context, userID int64) (*Feed, error) {
	f, err := s.store.CalendarFeedOf(ctx, userID)
	if err != nil {
		return nil, err
	}
	tok := s.feedToken(f.UserID, f.Nonce)
	if !hmac.Equal(models.HashToken(tok), f.TokenHash) {
		return nil, ErrFeedKeyChanged
	}
	return &Feed{Token: tok, CreatedAt: f.CreatedAt}, nil
}

// NewCalendarFeed makes user userID's feed, or renews it: a new address,
// and the old one stops working.
func (s *Service) NewCalendarFeed(ctx context.Context, userID int64) (*Feed, error) {
	f := &models.CalendarFeed{UserID: userID, Nonce: hex.EncodeToString(randomBytes(16))}
	tok := s.feedToken(f.UserID, f.Nonce)
	f.TokenHash = models.HashToken(tok)
	if err := s.store.SetCalendarFeed(ctx, f); err != nil {
		return nil, err
	}
	return &Feed{Token: tok, CreatedAt: f.CreatedAt}, nil
}

// DeleteCalendarFeed revokes user userID's feed: its address is no feed's
// from now on. models.ErrNotFound if they have none.
func (s *Service) DeleteCalendarFeed(ctx context.Context, userID int64) error {
	return s.store.DeleteCalendarFeed(ctx, userID)
}

// FeedUser is the user whose feed has the token token; models.ErrNotFound
// for a token that is no feed's (revoked, renewed, never made, or not
// shaped as one).
func (s *Service) FeedUser(ctx context.Context, token string) (int64, error) {
	if !strings.HasPrefix(token, feedPrefix) || len(token) > 64 {
		return 0, models.ErrNotFound
	}
	uid, err := s.store.CalendarFeedUser(ctx, models.HashToken(token))
	if errors.Is(err, models.ErrNotFound) {
		return 0, models.ErrNotFound
	}
	return uid, err
}
