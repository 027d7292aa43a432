package api

import (
	"net/http"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
)

// vacationDaysPerYear is each player's yearly allowance of vacation days
// (counted by the calendar year in which a vacation starts, UTC).
const vacationDaysPerYear = 21

type vacationRequest struct {
	StartsAt *time.Time `json:"starts_at"` // nil: now
	EndsAt   time.Time  `json:"ends_at"`
}

type vacationResponse struct {
	ID       int64  `json:"id"`
	StartsAt string `json:"starts_at"`
	EndsAt   string `json:"ends_at"`
}

type vacationList struct {
	Vacations     []vacationResponse `json:"vacations"`
	AllowanceDays int                `json:"allowance_days"`
	DaysLeft      float64            `json:"days_left"`
}

func vacationOut(v models.Vacation) vacationResponse {
	return vacationResponse{ID: v.ID, StartsAt: rfc3339(v.StartsAt), EndsAt: rfc3339(v.EndsAt)}
}

// daysUsed sums the days of vacations starting in year.
func daysUsed(vs []models.Vacation, year int) float64 {
	var d time.Duration
	for _, v := range vs {
		if v.StartsAt.UTC().Year() == year {
			d += v.EndsAt.Sub(v.StartsAt)
		}
	}
	return d.Hours() / 24
}

// listVacations lists the caller's current and coming vacations and what
// is left of this year's allowance.
func (s *Server) listVacations(c *gin.Context) {
	now := s.now().UTC()
	yearStart := time.Date(now.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	vs, err := s.store.Vacations(c.Request.Context(), userID(c), yearStart)
	if err != nil {
		writeError(c, err)
		return
	}
	out := vacationList{Vacations: []vacationResponse{}, AllowanceDays: vacationDaysPerYear,
		DaysLeft: vacationDaysPerYear - daysUsed(vs, now.Year())}
	for _, v := range vs {
		if v.EndsAt.After(now) {
			out.Vacations = append(out.Vacations, vacationOut(v))
		}
	}
	c.JSON(http.StatusOK, out)
}

// createVacation records an absence within the yearly allowance. The
// clocks of games waiting for the caller pause while they are away, and
// the other players of their active games are told.
func (s *Server) createVacation(c *gin.Context) {
	var req vacationRequest
	if err := decode(c, &req); err != nil {
		writeError(c, err)
		return
	}
	now := s.now().UTC()
	start := now
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
		yearStart := time.Date(start.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		vs, err := st.Vacations(c.Request.Context(), userID(c), yearStart)
		if err != nil {
			return response{}, err
		}
		for _, v := range vs {
			if v.StartsAt.Before(end) && start.Before(v.EndsAt) {
				return response{}, conflict("vacation_overlap", "overlaps the vacation from %s to %s", rfc3339(v.StartsAt), rfc3339(v.EndsAt))
			}
		}
		if used := daysUsed(vs, start.Year()) + end.Sub(start).Hours()/24; used > vacationDaysPerYear {
			return response{}, invalid("the yearly allowance is %d days; this would make %.1f", vacationDaysPerYear, used)
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
