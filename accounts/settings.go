package accounts

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
)

// Profile is what a player keeps of their account besides its sign-ins:
// the user (name, address, display name, the switches of turn
// notifications) and whether they play by replying to decision emails.
type Profile struct {
	User    *models.User
	Replies bool
}

// Profile returns user userID's profile.
func (s *Service) Profile(ctx context.Context, userID int64) (Profile, error) {
	u, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return Profile{}, err
	}
	return s.withReplies(ctx, u)
}

// withReplies is the profile of u.
func (s *Service) withReplies(ctx context.Context, u *models.User) (Profile, error) {
	set, err := s.store.MailSettingsOf(ctx, u.ID, 0)
	if err != nil {
		return Profile{}, err
	}
	return Profile{User: u, Replies: set.Replies}, nil
}

// ProfileChange is a change of a profile: the fields not nil change.
type ProfileChange struct {
	Email       *string // "" for none; a new address is not verified
	DisplayName *string
	// NotifyEmail and NotifyTurns change together (models.User's).
	Notify *struct{ Email, Turns bool }
	// Replies turns playing by email reply on or off in all the player's
	// games (a game's own choice still wins).
	Replies *bool
}

// UpdateProfile changes user userID's profile as ch says and returns it.
// An address that is none (ValidEmail) or a display name too long is
// refused (Invalid).
func (s *Service) UpdateProfile(ctx context.Context, userID int64, ch ProfileChange) (Profile, error) {
	if ch.Email != nil && !ValidEmail(*ch.Email) {
		return Profile{}, refusal.New(refusal.Invalid, "invalid", "email: not an address")
	}
	if ch.DisplayName != nil && len(*ch.DisplayName) > MaxDisplayName {
		return Profile{}, refusal.New(refusal.Invalid, "invalid", "display_name: at most %d characters", MaxDisplayName)
	}
	u, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return Profile{}, err
	}
	if ch.Email != nil {
		u.Email = *ch.Email
	}
	if ch.DisplayName != nil {
		u.DisplayName = *ch.DisplayName
	}
	if ch.Notify != nil {
		u.NotifyEmail, u.NotifyTurns = ch.Notify.Email, ch.Notify.Turns
	}
	if err := s.store.UpdateProfile(ctx, u); err != nil {
		return Profile{}, err
	}
	if ch.Replies != nil {
		if err := s.store.SetEmailReplies(ctx, u.ID, *ch.Replies); err != nil {
			return Profile{}, err
		}
	}
	return s.withReplies(ctx, u)
}

// SetTimeZone stores user userID's time zone; one ValidZone does not
// know is refused (Invalid).
func (s *Service) SetTimeZone(ctx context.Context, userID int64, zone string) error {
	if !ValidZone(zone) {
		return refusal.New(refusal.Invalid, "invalid", "time_zone: not a time zone")
	}
	return s.store.SetTimeZone(ctx, userID, zone)
}

// Preference is whether a player gets one kind of notification on one
// channel. Hours is the digest's least time between two digests (its row
// only; 0: unchanged, or the default).
type Preference struct {
	Kind    string
	Channel string
	Enabled bool
	Hours   int
}

// emailChannel is the channel of emails (notifier.ChannelEmail), which
// the digest goes out on.
const emailChannel = models.DigestChannel

// MaxDigestHours is the longest a digest's period may be: a week.
const MaxDigestHours = 7 * 24

// digest reports whether kind on channel is the digest's row.
func digest(kind, channel string) bool {
	return kind == models.DigestKind && channel == models.DigestChannel
}

// Preferences lists, for every notification kind and channel (Config.Kinds
// and Channels), whether user userID gets it: on unless turned off, but
// the digest and the emails of the table talk's messages, which are off
// unless turned on (models.OptIn); the digest has its hours (24 unless
// chosen).
func (s *Service) Preferences(ctx context.Context, userID int64) ([]Preference, error) {
	stored, err := s.store.Preferences(ctx, []int64{userID})
	if err != nil {
		return nil, err
	}
	out := make([]Preference, 0, len(s.cfg.Kinds)*len(s.cfg.Channels))
	for _, k := range s.cfg.Kinds {
		for _, ch := range s.cfg.Channels {
			p := Preference{Kind: k, Channel: ch, Enabled: !models.OptIn(k, ch)} // the digest, and messages' own emails, are opt-in
			if digest(k, ch) {
				p.Hours = models.DefaultDigestHours
			}
			for _, st := range stored {
				if st.Kind == k && st.Channel == ch {
					p.Enabled = st.Enabled
					if digest(k, ch) {
						p.Hours = int(st.Every() / time.Hour)
					}
				}
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// SetPreferences sets the preferences listed for user userID; the others
// stay as they are. An unknown kind or channel, or hours anywhere but on
// the digest's row or out of 1 to MaxDigestHours, is refused (Invalid),
// and nothing is set.
func (s *Service) SetPreferences(ctx context.Context, userID int64, ps []Preference) error {
	for i, p := range ps {
		switch {
		case !slices.Contains(s.cfg.Kinds, p.Kind) || !slices.Contains(s.cfg.Channels, p.Channel):
			return refusal.New(refusal.Invalid, "invalid", "preferences[%d]: unknown kind %q or channel %q", i, p.Kind, p.Channel)
		case p.Hours != 0 && !digest(p.Kind, p.Channel):
			return refusal.New(refusal.Invalid, "invalid", "preferences[%d].hours: only the digest (kind %s, channel %s) has hours",
				i, models.DigestKind, models.DigestChannel)
		case p.Hours < 0 || p.Hours > MaxDigestHours:
			return refusal.New(refusal.Invalid, "invalid", "preferences[%d].hours: 1 to %d hours between two digests", i, MaxDigestHours)
		}
	}
	for _, p := range ps {
		if err := s.store.SetPreference(ctx, models.Preference{UserID: userID, Kind: p.Kind, Channel: p.Channel,
			Enabled: p.Enabled, Hours: p.Hours}); err != nil {
			return err
		}
	}
	return nil
}

// StopEmails turns off the emails of kinds for user userID (an
// unsubscribe link's): their preferences on the email channel, the other
// channels as they are. A user that is gone is no error.
func (s *Service) StopEmails(ctx context.Context, userID int64, kinds []string) error {
	for _, k := range kinds {
		err := s.store.SetPreference(ctx, models.Preference{UserID: userID, Kind: k, Channel: emailChannel})
		if err != nil && !errors.Is(err, models.ErrNotFound) {
			return err
		}
	}
	return nil
}
