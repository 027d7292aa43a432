package models

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MinutesPerDay bounds the minutes of a day that quiet hours start and
// end at.
const MinutesPerDay = 24 * 60

// QuietHours are a player's quiet hours: every day from Start to End,
// minutes after midnight on the clock of their time zone Zone, wrapping
// midnight when End comes before Start (22:00 to 07:00 is 1320 to 420).
// Start and End are never equal (see accounts.CheckQuietHours). Being
// wall-clock times, they follow the zone's changes of offset: 22:00 to
// 07:00 lasts 8 hours on the night the clocks go forward.
type QuietHours struct {
	Start, End int
	Zone       string // an IANA name; "" or "UTC" for UTC
}

// Within reports whether t falls in the quiet hours and, if it does, when
// they end: the first time after t at which Zone's clock reads End. An
// end that the zone skips (its clocks jump over it) is the time of the
// jump's other side.
func (q QuietHours) Within(t time.Time) (time.Time, bool) {
	loc := Zone(q.Zone)
	lt := t.In(loc)
	m := lt.Hour()*60 + lt.Minute()
	y, mo, d := lt.Date()
	switch {
	case q.Start == q.End:
		return time.Time{}, false
	case q.Start < q.End: // within one day
		if m < q.Start || m >= q.End {
			return time.Time{}, false
		}
	case m >= q.Start: // wrapping midnight, before it: they end tomorrow
		d++
	case m >= q.End: // wrapping midnight, between their end and start
		return time.Time{}, false
	}
	end := time.Date(y, mo, d, q.End/60, q.End%60, 0, 0, loc)
	if !end.After(t) {
		return time.Time{}, false
	}
	return end, true
}

// OutOfQuiet moves t to the end of the quiet hours it falls in, of any of
// hours (by seat), again as long as the moved time falls in another's;
// it returns the time and the seats whose quiet hours moved it, in order.
// Should the quiet hours of the players cover the whole day between them,
// it stops after one move past each.
func OutOfQuiet(t time.Time, hours map[int]QuietHours) (time.Time, []int) {
	seats := slices.Sorted(maps.Keys(hours))
	var moved []int
	for range len(seats) + 1 {
		again := false
		for _, s := range seats {
			if end, ok := hours[s].Within(t); ok {
				t, again = end, true
				if !slices.Contains(moved, s) {
					moved = append(moved, s)
				}
			}
		}
		if !again {
			break
		}
	}
	return t, moved
}

// Zone is the time zone named name (IANA); UTC for "", "UTC" or a name it
// does not know. Zones are loaded once (time.LoadLocation reads and
// parses the zone's data on every call).
func Zone(name string) *time.Location {
	if name == "" || name == "UTC" {
		return time.UTC
	}
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location)
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		l = time.UTC
	}
	zones.Store(name, l)
	return l
}

var zones sync.Map

// qQuietHours reads the quiet hours of the users named that have them.
const qQuietHours = `
SELECT id, quiet_start, quiet_end, time_zone FROM users
WHERE id IN ? AND quiet_start IS NOT NULL AND quiet_end IS NOT NULL`

// QuietHoursOf returns the quiet hours of the users ids that have them,
// by user.
func (s *Store) QuietHoursOf(ctx context.Context, ids ...int64) (map[int64]QuietHours, error) {
	out := map[int64]QuietHours{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ID                   int64
		QuietStart, QuietEnd int
		TimeZone             string
	}
	if err := s.db.WithContext(ctx).Raw(qQuietHours, ids).Scan(&rows).Error; err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = QuietHours{Start: r.QuietStart, End: r.QuietEnd, Zone: r.TimeZone}
	}
	return out, nil
}

// SetQuietHours stores user userID's quiet hours, Start and End (their
// zone is the user's time zone); nil: none. The caller has checked them.
// ErrNotFound if there is no such user.
func (s *Store) SetQuietHours(ctx context.Context, userID int64, q *QuietHours) error {
	var start, end *int
	if q != nil {
		start, end = &q.Start, &q.End
	}
	return s.updateUser(ctx, `UPDATE users SET quiet_start = ?, quiet_end = ?, updated_at = ? WHERE id = ?`,
		start, end, s.Now(), userID)
}

// QuietSeats are the seats whose players' quiet hours moved the game's
// deadline to their end (DeadlineQuiet); none when it was not moved.
func (g *Game) QuietSeats() []int {
	if g.DeadlineQuiet == "" || g.DeadlineAt == nil {
		return nil
	}
	var out []int
	for _, f := range strings.Split(g.DeadlineQuiet, ",") {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// SetQuietSeats records on g the seats whose quiet hours moved its
// deadline (none: it was not moved).
func (g *Game) SetQuietSeats(seats []int) {
	fs := make([]string, len(seats))
	for i, s := range seats {
		fs[i] = strconv.Itoa(s)
	}
	g.DeadlineQuiet = strings.Join(fs, ",")
}

// withQuiet is r with the user's quiet hours q.
func withQuiet(r recipientRow, q QuietHours) recipientRow {
	r.quiet = &q
	return r
}

// seatQuiet returns the quiet hours of the users ids that have them, as
// the read of g's seats with their users read them (qLockGameRecipients),
// and whether it read every one of ids.
func (g *Game) seatQuiet(ids []int64) (map[int64]QuietHours, bool) {
	out := map[int64]QuietHours{}
	for _, id := range ids {
		r, ok := g.seatUser(id)
		if !ok || !r.quietRead {
			return nil, false
		}
		if r.quiet != nil {
			out[id] = *r.quiet
		}
	}
	return out, true
}

// QuietHours returns the quiet hours of the users ids that have them, by
// user, as the transaction of the change that loaded g reads them (see
// Mutate): with its seats when it read their users, else now; none for a
// game read outside a change.
func (g *Game) QuietHours(ids []int64) (map[int64]QuietHours, error) {
	if g.quietHours == nil {
		return map[int64]QuietHours{}, nil
	}
	return g.quietHours(ids)
}

// MoveOutOfQuiet moves g's deadline (not nil) out of the quiet hours of
// the players of the seats awaiting (people: not the service's bot), as
// hours reads them, to their end (OutOfQuiet), and records on g whose
// quiet hours moved it (DeadlineQuiet); a deadline in no one's quiet
// hours stays as it is.
func (g *Game) MoveOutOfQuiet(awaiting []int, hours func(ids []int64) (map[int64]QuietHours, error)) error {
	var ids []int64
	players := map[int]int64{}
	for _, seat := range awaiting {
		if seat >= 0 && seat < len(g.Seats) && g.Seats[seat].UserID != nil && g.Seats[seat].Bot == "" {
			players[seat] = *g.Seats[seat].UserID
			ids = append(ids, players[seat])
		}
	}
	if len(ids) == 0 {
		return nil
	}
	hs, err := hours(ids)
	if err != nil || len(hs) == 0 {
		return err
	}
	bySeat := map[int]QuietHours{}
	for seat, uid := range players {
		if h, ok := hs[uid]; ok {
			bySeat[seat] = h
		}
	}
	if at, seats := OutOfQuiet(*g.DeadlineAt, bySeat); len(seats) > 0 {
		g.DeadlineAt = &at
		g.SetQuietSeats(seats)
	}
	return nil
}
