package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
)

// vacationDaysPerYear is each player's yearly allowance of vacation days
// (counted by the calendar year in which a vacation starts, UTC).
const vacationDaysPerYear = 21

const day = 24 * time.Hour

type vacationRequest struct {
	StartsAt *time.Time `json:"starts_at"` // nil: now
	EndsAt   time.Time  `json:"ends_at"`
}

type vacationEndRequest struct {
	EndsAt time.Time `json:"ends_at"`
}

type vacationResponse struct {
	ID       int64  `json:"id"`
	StartsAt string `json:"starts_at"`
	EndsAt   string `json:"ends_at"`
}

// vacationList is the caller's vacations and this year's allowance left:
// DaysLeft in whole days (rounded down), SecondsLeft exactly.
type vacationList struct {
	Vacations     []vacationResponse `json:"vacations"`
	AllowanceDays int                `json:"allowance_days"`
	DaysLeft      int64              `json:"days_left"`
	SecondsLeft   int64              `json:"seconds_left"`
}

func vacationOut(v models.Vacation) vacationResponse {
	return vacationResponse{ID: v.ID, StartsAt: rfc3339(v.StartsAt), EndsAt: rfc3339(v.EndsAt)}
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

// vacationsOfYear returns the caller's vacations that end in or after the
// calendar year of t.
func (s *Server) vacationsOfYear(c *gin.Context, st *models.Store, t time.Time) ([]models.Vacation, error) {
	return st.Vacations(c.Request.Context(), userID(c), time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC))
}

// checkVacation refuses a vacation from start to end that leaves its
// calendar year, overlaps another of vs, or would take the year's
// vacations past the allowance. skip is the vacation being changed (0 for
// a new one), left out of the overlap and the sum.
func checkVacation(vs []models.Vacation, skip int64, start, end time.Time) error {
	if start.Year() != end.Add(-time.Nanosecond).Year() {
		return invalid("a vacation stays within one calendar year")
	}
	for _, v := range vs {
		if v.ID != skip && v.StartsAt.Before(end) && start.Before(v.EndsAt) {
			return conflict("vacation_overlap", "overlaps the vacation from %s to %s", rfc3339(v.StartsAt), rfc3339(v.EndsAt))
		}
	}
	if used := timeUsed(vs, start.Year(), skip) + end.Sub(start); used > vacationDaysPerYear*day {
		return invalid("the yearly allowance is %d days; this would make %s", vacationDaysPerYear, wholeDays(used))
	}
	return nil
}

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

// listVacations lists the caller's current and coming vacations and what
// is left of this year's allowance.
func (s *Server) listVacations(c *gin.Context) {
	now := s.now().UTC()
	vs, err := s.vacationsOfYear(c, s.store, now)
	if err != nil {
		writeError(c, err)
		return
	}
	left := max(vacationDaysPerYear*day-timeUsed(vs, now.Year(), 0), 0)
	out := vacationList{Vacations: []vacationResponse{}, AllowanceDays: vacationDaysPerYear,
		DaysLeft: int64(left / day), SecondsLeft: int64(left / time.Second)}
	for _, v := range vs {
		if v.EndsAt.After(now) {
			out.Vacations = append(out.Vacations, vacationOut(v))
		}
	}
	c.JSON(http.StatusOK, out)
}

// createVacation records an absence within the yearly allowance. The
// clocks of games waiting for the caller pause while they are away, and
// the other players of their active games are told. A vacation that starts
// now starts at the current whole second, so that its length, and what is
// left of the allowance, is a whole number of seconds.
func (s *Server) createVacation(c *gin.Context) {
	var req vacationRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	now := s.now().UTC()
	start := now.Truncate(time.Second)
	if req.StartsAt != nil {
		start = req.StartsAt.UTC()
	}
	end := req.EndsAt.UTC()
	switch {
	case start.Before(now.Add(-time.Minute)):
		writeError(c, invalid("starts_at: not in the past"))
		return
	case !end.After(start):
		writeError(c, invalid("ends_at: after starts_at"))
		return
	case start.Year() != end.Add(-time.Nanosecond).Year():
		writeError(c, invalid("a vacation stays within one calendar year"))
		return
	}
	// The overlap and the allowance are checked after a repeat is answered
	// (a repeat overlaps the vacation it made), in the transaction that
	// stores the vacation.
	s.idempotentCreate(c, func(st *models.Store) (response, error) {
		vs, err := s.vacationsOfYear(c, st, start)
		if err != nil {
			return response{}, err
		}
		if err := checkVacation(vs, 0, start, end); err != nil {
			return response{}, err
		}
		v := models.Vacation{UserID: userID(c), StartsAt: start, EndsAt: end}
		if err := st.AddVacation(c.Request.Context(), &v); err != nil {
			return response{}, err
		}
		if s.notify != nil && s.notify.Outbox != nil {
			tx, err := st.OutboxTx()
			if err != nil {
				return response{}, err
			}
			if err := s.notify.Outbox.VacationStarted(c.Request.Context(), tx, v); err != nil {
				return response{}, err
			}
		}
		return response{status: http.StatusCreated, body: vacationOut(v)}, nil
	})
}

// errVacationOver is a change to a vacation that has already ended.
var errVacationOver = conflict("vacation_over", "the vacation has already ended")

// changeVacation loads the caller's vacation from the path, in st, and
// refuses one that has ended by now.
func (s *Server) changeVacation(c *gin.Context, st *models.Store, now time.Time) (*models.Vacation, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return nil, err
	}
	v, err := st.VacationOf(c.Request.Context(), userID(c), id)
	if err != nil {
		return nil, err
	}
	if !v.EndsAt.After(now) {
		return nil, errVacationOver
	}
	return v, nil
}

// endVacation moves the end of the caller's current or coming vacation:
// earlier (ending it early; an end at or before now ends it now) or later
// (within the allowance, without overlapping another). The days not used
// go back to the allowance, and the clocks of the caller's games count the
// time away up to the new end.
func (s *Server) endVacation(c *gin.Context) {
	var req vacationEndRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	now := s.now().UTC()
	var out models.Vacation
	err := s.store.InTx(c.Request.Context(), func(st *models.Store) error {
		v, err := s.changeVacation(c, st, now)
		if err != nil {
			return err
		}
		end := req.EndsAt.UTC()
		if !end.After(v.StartsAt) {
			return invalid("ends_at: after starts_at (%s)", rfc3339(v.StartsAt))
		}
		if now.After(v.StartsAt) && end.Before(now) {
			end = now.Truncate(time.Second) // a vacation that has begun ends now at the earliest
		}
		if end.After(v.EndsAt) {
			vs, err := s.vacationsOfYear(c, st, v.StartsAt)
			if err != nil {
				return err
			}
			if err := checkVacation(vs, v.ID, v.StartsAt, end); err != nil {
				return err
			}
		}
		if !end.After(v.StartsAt) { // begun within this second: nothing of it is left
			out = models.Vacation{ID: v.ID, UserID: v.UserID, StartsAt: v.StartsAt, EndsAt: v.StartsAt}
			return st.DeleteVacation(c.Request.Context(), v.UserID, v.ID)
		}
		v.EndsAt = end
		out = *v
		return st.SetVacationEnd(c.Request.Context(), v.UserID, v.ID, end)
	})
	if err != nil {
		writeError(c, err)
		return
	}
	c.JSON(http.StatusOK, vacationOut(out))
}

// cancelVacation ends the caller's vacation: a coming one is removed, a
// current one ends now; either way the days not used go back to the
// allowance. A vacation that has ended is left as it was (409).
func (s *Server) cancelVacation(c *gin.Context) {
	now := s.now().UTC()
	err := s.store.InTx(c.Request.Context(), func(st *models.Store) error {
		v, err := s.changeVacation(c, st, now)
		if err != nil {
			return err
		}
		if end := now.Truncate(time.Second); end.After(v.StartsAt) {
			return st.SetVacationEnd(c.Request.Context(), v.UserID, v.ID, end)
		}
		return st.DeleteVacation(c.Request.Context(), v.UserID, v.ID)
	})
	if err != nil {
		writeError(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}
