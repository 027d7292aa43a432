package accounts

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
)

// Quiet hours: every day from a start to an end on the clock of a
// player's time zone (22:00 to 07:00 wraps midnight), in which the
// emails and pushes that are not urgent wait until the end (the
// notifier's quiet.go says what is urgent), and a deadline that would
// fall in them moves to their end (unless the game's settings say
// otherwise). They are off until the player sets them.

// Quiet is a player's quiet hours as the settings show them: whether
// they have any, from Start to End (minutes after midnight), on the
// clock of Zone, their time zone.
type Quiet struct {
	On         bool
	Start, End int
	Zone       string // IANA name; "UTC" for UTC
}

// StartText and EndText are Start and End as a 24-hour clock reads them
// ("22:00"); "" when the quiet hours are off.
func (q Quiet) StartText() string { return q.clock(q.Start) }

// EndText: see StartText.
func (q Quiet) EndText() string { return q.clock(q.End) }

func (q Quiet) clock(m int) string {
	if !q.On {
		return ""
	}
	return ClockText(m)
}

// ClockText writes m minutes after midnight as a 24-hour clock reads
// them: "07:00".
func ClockText(m int) string { return fmt.Sprintf("%02d:%02d", m/60, m%60) }

// ParseClock reads a time of day written as a 24-hour clock shows it,
// "HH:MM" ("7:00" too, and ":00" seconds, as a browser may send them), as
// minutes after midnight; anything else is refused (Invalid), the refusal
// naming field.
func ParseClock(field, v string) (int, error) {
	bad := refusal.New(refusal.Invalid, "invalid", "%s: a time of day from 00:00 to 23:59, such as 22:00", field)
	parts := strings.Split(strings.TrimSpace(v), ":")
	if len(parts) == 3 && parts[2] == "00" {
		parts = parts[:2] // seconds, as a browser may send them
	}
	if len(parts) != 2 || len(parts[0]) < 1 || len(parts[0]) > 2 || len(parts[1]) != 2 {
		return 0, bad
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || parts[0][0] == '+' || parts[0][0] == '-' || parts[1][0] == '+' || parts[1][0] == '-' ||
		h > 23 || m > 59 {
		return 0, bad
	}
	return h*60 + m, nil
}

// QuietHours returns user userID's quiet hours.
func (s *Service) QuietHours(ctx context.Context, userID int64) (Quiet, error) {
	a, err := s.store.AccountByID(ctx, userID)
	if err != nil {
		return Quiet{}, err
	}
	hs, err := s.store.QuietHoursOf(ctx, userID)
	if err != nil {
		return Quiet{}, err
	}
	out := Quiet{Zone: a.TimeZone}
	if out.Zone == "" {
		out.Zone = "UTC"
	}
	if h, ok := hs[userID]; ok {
		out.On, out.Start, out.End = true, h.Start, h.End
	}
	return out, nil
}

// SetQuietHours gives user userID quiet hours from start to end, times of
// day as ParseClock reads them, on the clock of their time zone, and
// returns them. A time that is none, or an end that is the start, is
// refused (Invalid, naming the field "start" or "end") and nothing
// changes.
func (s *Service) SetQuietHours(ctx context.Context, userID int64, start, end string) (Quiet, error) {
	from, err := ParseClock("start", start)
	if err != nil {
		return Quiet{}, err
	}
	to, err := ParseClock("end", end)
	if err != nil {
		return Quiet{}, err
	}
	if from == to {
		return Quiet{}, refusal.New(refusal.Invalid, "invalid", "end: not the start (%s); quiet hours end at another time of day", ClockText(from))
	}
	if err := s.store.SetQuietHours(ctx, userID, &models.QuietHours{Start: from, End: to}); err != nil {
		return Quiet{}, err
	}
	return s.QuietHours(ctx, userID)
}

// QuietHoursOff takes user userID's quiet hours away and returns what is
// left: none, in their time zone.
func (s *Service) QuietHoursOff(ctx context.Context, userID int64) (Quiet, error) {
	if err := s.store.SetQuietHours(ctx, userID, nil); err != nil {
		return Quiet{}, err
	}
	return s.QuietHours(ctx, userID)
}
