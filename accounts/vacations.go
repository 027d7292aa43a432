package accounts

import (
	"context"
	"strconv"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
)

// VacationDaysPerYear is each player's yearly allowance of vacation days
// (counted by the calendar year in which a vacation starts, UTC).
const VacationDaysPerYear = 21

const day = 24 * time.Hour

// Vacations are a player's current and coming vacations and what is left
// of this year's allowance.
type Vacations struct {
	Vacations []models.Vacation
	Left      time.Duration
}

// timeUsed sums the lengths of the vacations starting in year, leaving out
// the vacation skip (0: none).
func timeUsed(vs []models.Vacation, year int, skip int64) time.Duration {
	var d time.Duration
	for _, v := range vs {
		if v.StartsAt.UTC().Year() == year && v.ID != skip {
			d += v.EndsAt.Sub(v.StartsAt)
		}
	}
	return d
}

// vacationsOfYear returns user userID's vacations that end in or after
// the calendar year of t.
func (s *Service) vacationsOfYear(ctx context.Context, userID int64, t time.Time) ([]models.Vacation, error) {
	return s.store.Vacations(ctx, userID, time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC))
}

// checkVacation refuses a vacation from start to end that leaves its
// calendar year, overlaps another of vs, or would take the year's
// vacations past the allowance. skip is the vacation being changed (0 for
// a new one), left out of the overlap and the sum.
func checkVacation(vs []models.Vacation, skip int64, start, end time.Time) error {
	if start.Year() != end.Add(-time.Nanosecond).Year() {
		return errOneYear
	}
	for _, v := range vs {
		if v.ID != skip && v.StartsAt.Before(end) && start.Before(v.EndsAt) {
			return refusal.New(refusal.Conflict, "vacation_overlap", "overlaps the vacation from %s to %s", rfc3339(v.StartsAt), rfc3339(v.EndsAt))
		}
	}
	if used := timeUsed(vs, start.Year(), skip) + end.Sub(start); used > VacationDaysPerYear*day {
		return refusal.New(refusal.Invalid, "invalid", "the yearly allowance is %d days; this would make %s", VacationDaysPerYear, wholeDays(used))
	}
	return nil
}

var errOneYear = refusal.New(refusal.Invalid, "invalid", "a vacation stays within one calendar year")

// rfc3339 formats t in UTC.
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// wholeDays writes d as days, hours, minutes and seconds ("3 days 4h0m0s").
func wholeDays(d time.Duration) string {
	days := d / day
	rest := (d % day).Truncate(time.Second)
	switch {
	case rest == 0 && days == 1:
		return "1 day"
	case rest == 0:
		return strconv.FormatInt(int64(days), 10) + " days"
	case days == 0:
		return rest.String()
	}
	return strconv.FormatInt(int64(days), 10) + " days " + rest.String()
}

// Vacations lists user userID's current and coming vacations and what is
// left of this year's allowance.
func (s *Service) Vacations(ctx context.Context, userID int64) (Vacations, error) {
	now := s.now().UTC()
	vs, err := s.vacationsOfYear(ctx, userID, now)
	if err != nil {
		return Vacations{}, err
	}
	out := Vacations{Vacations: []models.Vacation{}, Left: max(VacationDaysPerYear*day-timeUsed(vs, now.Year(), 0), 0)}
	for _, v := range vs {
		if v.EndsAt.After(now) {
			out.Vacations = append(out.Vacations, v)
		}
	}
	return out, nil
}

// NewVacation is a vacation of user userID from start (nil: now, at the
// current whole second, so that its length, and what is left of the
// allowance, is a whole number of seconds) to end, not yet booked (see
// BookVacation). One that starts in the past, ends before it starts or
// leaves its calendar year is refused (Invalid).
func (s *Service) NewVacation(userID int64, start *time.Time, end time.Time) (models.Vacation, error) {
	now := s.now().UTC()
	from := now.Truncate(time.Second)
	if start != nil {
		from = start.UTC()
	}
	end = end.UTC()
	switch {
	case from.Before(now.Add(-time.Minute)):
		return models.Vacation{}, refusal.New(refusal.Invalid, "invalid", "starts_at: not in the past")
	case !end.After(from):
		return models.Vacation{}, refusal.New(refusal.Invalid, "invalid", "ends_at: after starts_at")
	case from.Year() != end.Add(-time.Nanosecond).Year():
		return models.Vacation{}, errOneYear
	}
	return models.Vacation{UserID: userID, StartsAt: from, EndsAt: end}, nil
}

// BookVacation books v, made by NewVacation, within the yearly allowance
// and without overlapping another (a Conflict, "vacation_overlap"). The
// clocks of games waiting for the player pause while they are away, and
// the other players of their active games are told (Config.Vacations), in
// one transaction: the caller's (In), else its own.
func (s *Service) BookVacation(ctx context.Context, v *models.Vacation) error {
	// The user's row first: two bookings at once are checked one after
	// the other, so that the second sees the first (on Postgres both read
	// the vacations before either wrote otherwise).
	return s.store.InTx(ctx, func(st *models.Store) error {
		if err := st.LockUser(ctx, v.UserID); err != nil {
			return err
		}
		vs, err := s.In(st).vacationsOfYear(ctx, v.UserID, v.StartsAt)
		if err != nil {
			return err
		}
		if err := checkVacation(vs, 0, v.StartsAt, v.EndsAt); err != nil {
			return err
		}
		if err := st.AddVacation(ctx, v); err != nil {
			return err
		}
		if s.cfg.Vacations == nil {
			return nil
		}
		tx, err := st.OutboxTx()
		if err != nil {
			return err
		}
		return s.cfg.Vacations.VacationStarted(ctx, tx, *v)
	})
}

// errVacationOver is a change to a vacation that has already ended.
var errVacationOver = refusal.New(refusal.Conflict, "vacation_over", "the vacation has already ended")

// changeVacation loads user userID's vacation id, in st, and refuses one
// that has ended by now.
func changeVacation(ctx context.Context, st *models.Store, userID, id int64, now time.Time) (*models.Vacation, error) {
	v, err := st.VacationOf(ctx, userID, id)
	if err != nil {
		return nil, err
	}
	if !v.EndsAt.After(now) {
		return nil, errVacationOver
	}
	return v, nil
}

// MoveVacationEnd moves the end of user userID's current or coming
// vacation id to end: earlier (ending it early; an end at or before now
// ends it now) or later (within the allowance, without overlapping
// another). The days not used go back to the allowance, and the clocks of
// the player's games count the time away up to the new end. It returns the
// vacation as it is then (ending where it starts if nothing of it is left).
func (s *Service) MoveVacationEnd(ctx context.Context, userID, id int64, end time.Time) (models.Vacation, error) {
	now := s.now().UTC()
	var out models.Vacation
	err := s.store.InTx(ctx, func(st *models.Store) error {
		if err := st.LockUser(ctx, userID); err != nil { // as BookVacation
			return err
		}
		v, err := changeVacation(ctx, st, userID, id, now)
		if err != nil {
			return err
		}
		end := end.UTC()
		if !end.After(v.StartsAt) {
			return refusal.New(refusal.Invalid, "invalid", "ends_at: after starts_at (%s)", rfc3339(v.StartsAt))
		}
		if now.After(v.StartsAt) && end.Before(now) {
			end = now.Truncate(time.Second) // a vacation that has begun ends now at the earliest
		}
		if end.After(v.EndsAt) {
			vs, err := s.In(st).vacationsOfYear(ctx, userID, v.StartsAt)
			if err != nil {
				return err
			}
			if err := checkVacation(vs, v.ID, v.StartsAt, end); err != nil {
				return err
			}
		}
		if !end.After(v.StartsAt) { // begun within this second: nothing of it is left
			out = models.Vacation{ID: v.ID, UserID: v.UserID, StartsAt: v.StartsAt, EndsAt: v.StartsAt}
			return st.DeleteVacation(ctx, v.UserID, v.ID)
		}
		v.EndsAt = end
		out = *v
		return st.SetVacationEnd(ctx, v.UserID, v.ID, end)
	})
	return out, err
}

// EndVacation ends user userID's vacation id: a coming one is removed, a
// current one ends now; either way the days not used go back to the
// allowance. A vacation that has ended is left as it was (a Conflict,
// "vacation_over").
func (s *Service) EndVacation(ctx context.Context, userID, id int64) error {
	now := s.now().UTC()
	return s.store.InTx(ctx, func(st *models.Store) error {
		v, err := changeVacation(ctx, st, userID, id, now)
		if err != nil {
			return err
		}
		if end := now.Truncate(time.Second); end.After(v.StartsAt) {
			return st.SetVacationEnd(ctx, v.UserID, v.ID, end)
		}
		return st.DeleteVacation(ctx, v.UserID, v.ID)
	})
}
