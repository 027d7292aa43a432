package api

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/internal/ical"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// The calendar feed: a player's running deadlines as an iCalendar feed
// (RFC 5545) at a private address, for their calendar app to subscribe
// to. The address carries a token (accounts.Feed) that is the credential.

// feedRefresh is how often the feed asks a subscriber to fetch it again.
const feedRefresh = 15 * time.Minute

type calendarResponse struct {
	URL       string `json:"url"`
	WebcalURL string `json:"webcal_url"`
	CreatedAt string `json:"created_at"`
}

// feedOut is the feed f's addresses.
func (s *Server) feedOut(c *gin.Context, f *accounts.Feed) calendarResponse {
	base := s.baseURL(c)
	return calendarResponse{URL: f.URL(base), WebcalURL: f.WebcalURL(base), CreatedAt: rfc3339(f.CreatedAt)}
}

// baseURL is the service's public address: BaseURL, or without one (a
// server started by hand or a test), the scheme and host the request
// came to.
func (s *Server) baseURL(c *gin.Context) string {
	if s.cfg.BaseURL != "" {
		return strings.TrimRight(s.cfg.BaseURL, "/")
	}
	scheme := "http"
	if c.Request.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + c.Request.Host
}

var errNoFeed = newError(http.StatusNotFound, "not_found", "Not found", "you have no calendar feed: POST /v1/me/calendar makes one")

// getCalendar gives the address of the caller's feed (login session only).
func (s *Server) getCalendar(c *gin.Context) error {
	f, err := s.acc.CalendarFeed(c.Request.Context(), userID(c))
	switch {
	case errors.Is(err, models.ErrNotFound):
		err = errNoFeed
	case errors.Is(err, accounts.ErrFeedKeyChanged):
		err = newError(http.StatusNotFound, "not_found", "Not found",
			"your calendar feed's address can no longer be shown (the server's key changed): POST /v1/me/calendar makes a new one")
	}
	if err != nil {
		return err
	}
	c.Header("Cache-Control", "no-store")
	writeJSON(c, http.StatusOK, s.feedOut(c, f))
	return nil
}

// createCalendar makes the caller's feed, or renews it: a new address,
// and the old one stops working (login session only).
func (s *Server) createCalendar(c *gin.Context) error {
	f, err := s.acc.NewCalendarFeed(c.Request.Context(), userID(c))
	if err != nil {
		return err
	}
	c.Header("Cache-Control", "no-store")
	writeJSON(c, http.StatusCreated, s.feedOut(c, f))
	return nil
}

// deleteCalendar revokes the caller's feed: its address answers 404 from
// now on (login session only).
func (s *Server) deleteCalendar(c *gin.Context) error {
	err := s.acc.DeleteCalendarFeed(c.Request.Context(), userID(c))
	if errors.Is(err, models.ErrNotFound) {
		err = errNoFeed
	}
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

var errNoSuchFeed = newError(http.StatusNotFound, "not_found", "Not found", "no calendar feed has this address (it may have been renewed or turned off)")

// calendarFeed serves a feed: the token in its address is the credential.
// An address that is no feed's (revoked, renewed, or never made) is 404.
func (s *Server) calendarFeed(c *gin.Context) error {
	tok, ok := strings.CutSuffix(c.Param("file"), accounts.FeedSuffix)
	if !ok {
		return errNoSuchFeed
	}
	ctx := c.Request.Context()
	uid, err := s.acc.FeedUser(ctx, tok)
	if errors.Is(err, models.ErrNotFound) {
		err = errNoSuchFeed
	}
	if err != nil {
		return err
	}
	u, err := s.store.UserByID(ctx, uid)
	if err != nil {
		return err
	}
	ds, err := s.play.Deadlines(ctx, uid)
	if err != nil {
		return err
	}
	cal := feedOf(s.baseURL(c), u.Username, ds)
	c.Header("Cache-Control", "private, no-cache")
	c.Data(http.StatusOK, "text/calendar; charset=utf-8", cal.Marshal())
	return nil
}

// feedOf is the calendar of username's deadlines ds, linking to the
// boards under base.
func feedOf(base, username string, ds []play.Deadline) *ical.Calendar {
	base = strings.TrimRight(base, "/")
	host := "datamonsters"
	if i := strings.Index(base, "://"); i >= 0 {
		host = strings.SplitN(base[i+3:], "/", 2)[0]
	}
	cal := &ical.Calendar{ProdID: "-//Data Monsters//Turn service//EN", Name: "Data Monsters: " + username + "’s deadlines",
		Refresh: feedRefresh}
	for _, d := range ds {
		board := base + "/games/" + strconv.FormatInt(d.GameID, 10)
		cal.Events = append(cal.Events, ical.Event{
			UID:      "g" + strconv.FormatInt(d.GameID, 10) + "-" + d.Wait + "-s" + strconv.Itoa(d.Seat) + "@" + host,
			Sequence: d.Revision, Stamp: d.RevisedAt, Start: d.At,
			Summary: deadlineSummary(d), Description: deadlineDescription(d, board), URL: board, Transparent: true,
		})
	}
	return cal
}

// deadlineSummary is what a person reads in their calendar.
func deadlineSummary(d play.Deadline) string {
	game := "Game #" + strconv.FormatInt(d.GameID, 10)
	if d.Kind == play.DeadlinePrompt {
		return "Data Monsters: your decision in " + game + " is due"
	}
	return "Data Monsters: your turn in " + game + " ends"
}

// deadlineDescription says the deadline in a few lines: what is due,
// against whom, what happens when time runs out, and where to play.
func deadlineDescription(d play.Deadline, board string) string {
	lines := []string{}
	if d.Kind == play.DeadlinePrompt {
		lines = append(lines, "A decision waits for you in Game #"+strconv.FormatInt(d.GameID, 10)+
			" (turn "+strconv.Itoa(d.Turn)+"). If time runs out, its default answer is taken for you.")
	} else {
		lines = append(lines, "It is your turn in Game #"+strconv.FormatInt(d.GameID, 10)+
			" (turn "+strconv.Itoa(d.Turn)+"). If time runs out, your turn ends.")
	}
	if d.Quiet {
		lines = append(lines, "The deadline was moved out of your quiet hours, to their end.")
	}
	if len(d.Players) > 0 {
		lines = append(lines, "With "+joinAnd(d.Players)+".")
	}
	lines = append(lines, "Play: "+board)
	return strings.Join(lines, "\n")
}

// joinAnd writes "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
