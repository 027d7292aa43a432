package api

import (
	"net/http"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
)

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

// listVacations lists the caller's current and coming vacations and what
// is left of this year's allowance.
func (s *Server) listVacations(c *gin.Context) error {
	vs, err := s.acc.Vacations(c.Request.Context(), userID(c))
	if err != nil {
		return err
	}
	out := vacationList{Vacations: []vacationResponse{}, AllowanceDays: accounts.VacationDaysPerYear,
		DaysLeft: int64(vs.Left / (24 * time.Hour)), SecondsLeft: int64(vs.Left / time.Second)}
	for _, v := range vs.Vacations {
		out.Vacations = append(out.Vacations, vacationOut(v))
	}
	writeJSON(c, http.StatusOK, out)
	return nil
}

// createVacation records an absence within the yearly allowance
// (accounts.Service.BookVacation). The clocks of games waiting for the
// caller pause while they are away, and the other players of their active
// games are told.
func (s *Server) createVacation(c *gin.Context) error {
	var req vacationRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	v, err := s.acc.NewVacation(userID(c), req.StartsAt, req.EndsAt)
	if err != nil {
		return err
	}
	// The overlap and the allowance are checked after a repeat is answered
	// (a repeat overlaps the vacation it made), in the transaction that
	// stores the vacation.
	return s.idempotentCreate(c, func(st *models.Store) (response, error) {
		if err := s.acc.In(st).BookVacation(c.Request.Context(), &v); err != nil {
			return response{}, err
		}
		return response{status: http.StatusCreated, body: vacationOut(v)}, nil
	})
}

// endVacation moves the end of the caller's current or coming vacation
// (accounts.Service.MoveVacationEnd): earlier (ending it early) or later
// (within the allowance, without overlapping another).
func (s *Server) endVacation(c *gin.Context, id int64) error {
	var req vacationEndRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	v, err := s.acc.MoveVacationEnd(c.Request.Context(), userID(c), id, req.EndsAt)
	if err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, vacationOut(v))
	return nil
}

// cancelVacation ends the caller's vacation: a coming one is removed, a
// current one ends now; either way the days not used go back to the
// allowance. A vacation that has ended is left as it was (409).
func (s *Server) cancelVacation(c *gin.Context, id int64) error {
	if err := s.acc.EndVacation(c.Request.Context(), userID(c), id); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
