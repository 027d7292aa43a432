package api

import (
	"net/http"

	"github.com/datamonsters/turns/accounts"
	"github.com/gin-gonic/gin"
)

// Quiet hours (accounts/quiet.go): a player's hours of the day, on the
// clock of their time zone, in which the emails and pushes that are not
// urgent wait, and which deadlines move out of.

type quietHoursResponse struct {
	Enabled  bool    `json:"enabled"`
	Start    *string `json:"start"` // "22:00"; null when not enabled
	End      *string `json:"end"`
	TimeZone string  `json:"time_zone"`
}

type quietHoursRequest struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

func quietOut(q accounts.Quiet) quietHoursResponse {
	out := quietHoursResponse{Enabled: q.On, TimeZone: q.Zone}
	if q.On {
		start, end := q.StartText(), q.EndText()
		out.Start, out.End = &start, &end
	}
	return out
}

// getQuietHours gives the caller's quiet hours (login session only).
func (s *Server) getQuietHours(c *gin.Context) error {
	q, err := s.acc.QuietHours(c.Request.Context(), userID(c))
	if err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, quietOut(q))
	return nil
}

// setQuietHours sets the caller's quiet hours (login session only).
func (s *Server) setQuietHours(c *gin.Context) error {
	var req quietHoursRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	q, err := s.acc.SetQuietHours(c.Request.Context(), userID(c), req.Start, req.End)
	if err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, quietOut(q))
	return nil
}

// deleteQuietHours turns the caller's quiet hours off (login session
// only).
func (s *Server) deleteQuietHours(c *gin.Context) error {
	if _, err := s.acc.QuietHoursOff(c.Request.Context(), userID(c)); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
