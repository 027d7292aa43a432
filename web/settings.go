package web

import (
	"context"
	"encoding/hex"
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/notifier"
	"github.com/gin-gonic/gin"
)

// The shapes of the JSON API's answers the settings read (see
// openapi.yaml).
type (
	apiPreference struct {
		Kind    string `json:"kind"`
		Channel string `json:"channel"`
		Enabled bool   `json:"enabled"`
	}
	apiPreferences struct {
		Preferences []apiPreference `json:"preferences"`
	}
	apiVacation struct {
		ID       int64     `json:"id"`
		StartsAt time.Time `json:"starts_at"`
		EndsAt   time.Time `json:"ends_at"`
	}
	apiVacations struct {
		Vacations     []apiVacation `json:"vacations"`
		AllowanceDays int           `json:"allowance_days"`
		DaysLeft      int           `json:"days_left"`
	}
	apiToken struct {
		ID         int64      `json:"id"`
		Name       string     `json:"name"`
		Prefix     string     `json:"prefix"`
		Scopes     []string   `json:"scopes"`
		CreatedAt  time.Time  `json:"created_at"`
		LastUsedAt *time.Time `json:"last_used_at"`
		Token      string     `json:"token,omitempty"`
	}
	apiTokens struct {
		Tokens []apiToken `json:"tokens"`
	}
	apiCalendar struct {
		URL       string    `json:"url"`
		WebcalURL string    `json:"webcal_url"`
		CreatedAt time.Time `json:"created_at"`
	}
)

// Webcal is the feed's address with the webcal scheme, which a calendar
// app opens to subscribe; html/template would refuse the scheme, and the
// address is the API's own (its base URL and a token), so it is trusted
// when it is webcal:// and nothing else.
func (c apiCalendar) Webcal() template.URL {
	if !strings.HasPrefix(c.WebcalURL, "webcal://") {
		return ""
	}
	return template.URL(c.WebcalURL)
}

// LastDay is a moment of the vacation's last day (it ends at the start of
// the next).
func (v apiVacation) LastDay() time.Time { return v.EndsAt.Add(-time.Second) }

// settingsView is the settings page's data.
type settingsView struct {
	Replies   bool // the user's decision emails take replies with moves (see replies.go)
	RepliesIn bool // replies to emails come in at all (Config.Replies): the switch is shown
	Zones     []zoneGroup
	Channels  []channelItem
	Kinds     []kindItem // notification kinds, each with a box per channel
	Vacations apiVacations
	Tokens    []apiToken
	NewToken  *apiToken    // the token just created, shown once
	Calendar  *apiCalendar // the calendar feed's address; nil: the feed is off
	FormKey   string       // the Idempotency-Key of the page's create forms
	Today     string       // the user's date, for the date inputs' minimum
}

// channelItem is a notification channel, in words.
type channelItem struct{ Name, Label string }

// kindItem is a notification kind with its box per channel.
type kindItem struct {
	Label string
	Boxes []prefBox
}

// prefBox is one notification preference's checkbox.
type prefBox struct {
	Value   string // kind/channel
	Label   string // "Your turn by email", for screen readers
	Enabled bool
}

// kindWords and channelWords name notifications for people.
var (
	kindWords = map[notifier.Kind]string{
		notifier.KindInvitation: "Invitations", notifier.KindGameStarted: "A game starts", notifier.KindYourTurn: "Your turn",
		notifier.KindPromptWaiting: "A decision waits for you", notifier.KindQueuedActions: "Your queued actions",
		notifier.KindDeadlineReminder: "Deadline reminders", notifier.KindTimeoutApplied: "Someone ran out of time",
		notifier.KindGameOver: "A game ends", notifier.KindVacation: "Another player is away",
		notifier.KindSeatReclaimed: "You take your seat back from the bot", notifier.KindDigest: "Daily digest",
	}
	channelWords = map[string]string{notifier.ChannelEmail: "Email", notifier.ChannelWebhook: "Webhooks", notifier.ChannelStream: "Live stream"}
)

// settings shows the settings page.
func (p *Pages) settings(c *gin.Context) {
	sv, err := p.settingsData(c)
	if err != nil {
		p.fail(c, err)
		return
	}
	p.render(c, http.StatusOK, "settings", view{Form: settingsForm(c, form{}), Data: sv})
}

// settingsForm fills in the current address where f has none.
func settingsForm(c *gin.Context, f form) form {
	if f.Values == nil {
		f.Values = map[string]string{}
	}
	if _, ok := f.Values["email"]; !ok {
		f.Values["email"] = account(c).Email
	}
	return f
}

// settingsData reads what the settings page shows, through the API.
func (p *Pages) settingsData(c *gin.Context) (*settingsView, error) {
	var prefs apiPreferences
	sv := &settingsView{Zones: zoneGroups, FormKey: hex.EncodeToString(notifier.NewNonce()),
		Today: p.now().In(location(account(c))).Format(time.DateOnly)}
	if err := p.callAPI(c, http.MethodGet, "/v1/me/notification-preferences", nil, &prefs, ""); err != nil {
		return nil, err
	}
	if err := p.callAPI(c, http.MethodGet, "/v1/me/vacations", nil, &sv.Vacations, ""); err != nil {
		return nil, err
	}
	var toks apiTokens
	if err := p.callAPI(c, http.MethodGet, "/v1/tokens", nil, &toks, ""); err != nil {
		return nil, err
	}
	sv.Tokens = toks.Tokens
	cal, err := p.calendarFeed(c)
	if err != nil {
		return nil, err
	}
	sv.Calendar = cal
	if sv.RepliesIn = p.cfg.Replies; sv.RepliesIn {
		replies, err := p.repliesOn(c)
		if err != nil {
			return nil, err
		}
		sv.Replies = replies
	}
	enabled := map[string]bool{}
	for _, pr := range prefs.Preferences {
		enabled[pr.Kind+"/"+pr.Channel] = pr.Enabled
	}
	for _, ch := range notifier.Channels {
		sv.Channels = append(sv.Channels, channelItem{Name: ch, Label: channelWords[ch]})
	}
	for _, k := range notifier.Kinds {
		ki := kindItem{Label: kindWords[k]}
		for _, ch := range notifier.Channels {
			v := string(k) + "/" + ch
			ki.Boxes = append(ki.Boxes, prefBox{Value: v, Label: kindWords[k] + " by " + strings.ToLower(channelWords[ch]), Enabled: enabled[v]})
		}
		sv.Kinds = append(sv.Kinds, ki)
	}
	return sv, nil
}

// settingsAgain shows the settings page again with what went wrong in
// section, for an error the user can fix (a field, a rule of the API);
// other errors get the error page.
func (p *Pages) settingsAgain(c *gin.Context, section string, status int, msg string, f form) {
	sv, err := p.settingsData(c)
	if err != nil {
		p.fail(c, err)
		return
	}
	p.render(c, status, "settings", view{Section: section, Problem: msg, Form: settingsForm(c, f), Data: sv})
}

// settingsFailed is settingsAgain for an error of the API, when the API
// refused the request (4xx); else the error page.
func (p *Pages) settingsFailed(c *gin.Context, section string, err error, f form) {
	var ap *apiProblem
	if errors.As(err, &ap) && ap.Status < 500 && ap.Status != http.StatusTooManyRequests {
		p.settingsAgain(c, section, ap.Status, sentence(ap.Detail), f)
		return
	}
	p.fail(c, err)
}

// changeEmail changes the user's address (PATCH /v1/me) and mails a link
// to verify the new one.
func (p *Pages) changeEmail(c *gin.Context) {
	f := formOf(c, "email")
	addr := strings.TrimSpace(f.Values["email"])
	if addr == "" || !p.api.ValidEmail(addr) {
		p.settingsAgain(c, "email", http.StatusUnprocessableEntity, "", f.invalid("email", "Enter an email address such as ana@example.com."))
		return
	}
	a := account(c)
	if addr == a.Email {
		redirect(c, "/settings")
		return
	}
	if err := p.callAPI(c, http.MethodPatch, "/v1/me", map[string]string{"email": addr}, nil, ""); err != nil {
		p.settingsFailed(c, "email", err, f)
		return
	}
	changed := *a
	changed.Email = addr
	if err := p.sendMail(c.Request.Context(), verifyWords(addr, verifyTTL), &changed, p.verifyURL(&changed)); err != nil {
		p.log.Warn("verification mail", "user_id", a.ID, "error", err)
		redirect(c, "/settings?done=email-x")
		return
	}
	redirect(c, "/settings?done=email")
}

// changeTimeZone stores the user's time zone.
func (p *Pages) changeTimeZone(c *gin.Context) {
	zone := c.PostForm("time_zone")
	if !validZone(zone) {
		p.settingsAgain(c, "time-zone", http.StatusUnprocessableEntity, "", form{}.invalid("time_zone", "Choose a time zone from the list."))
		return
	}
	if err := p.store.SetTimeZone(c.Request.Context(), account(c).ID, zone); err != nil {
		p.fail(c, err)
		return
	}
	redirect(c, "/settings?done=time-zone")
}

// changePreferences sets every notification preference from the form's
// boxes (PUT /v1/me/notification-preferences): a box left unticked turns
// that notification off.
func (p *Pages) changePreferences(c *gin.Context) {
	on := map[string]bool{}
	for _, v := range c.PostFormArray("pref") {
		on[v] = true
	}
	var req apiPreferences
	for _, k := range notifier.Kinds {
		for _, ch := range notifier.Channels {
			req.Preferences = append(req.Preferences, apiPreference{Kind: string(k), Channel: ch, Enabled: on[string(k)+"/"+ch]})
		}
	}
	if err := p.callAPI(c, http.MethodPut, "/v1/me/notification-preferences", req, nil, ""); err != nil {
		p.settingsFailed(c, "notifications", err, form{})
		return
	}
	redirect(c, "/settings?done=notify#notifications")
}

// startVacation books a vacation (POST /v1/me/vacations) from the first
// day (empty or today: from now) to the last day, both whole days in the
// user's time zone.
func (p *Pages) startVacation(c *gin.Context) {
	f := formOf(c, "first_day", "last_day")
	loc := location(account(c))
	now := p.now().In(loc)
	req := struct {
		StartsAt *time.Time `json:"starts_at,omitempty"`
		EndsAt   time.Time  `json:"ends_at"`
	}{}
	if s := f.Values["first_day"]; s != "" && s != now.Format(time.DateOnly) {
		d, err := time.ParseInLocation(time.DateOnly, s, loc)
		if err != nil {
			p.settingsAgain(c, "vacations", http.StatusUnprocessableEntity, "", f.invalid("first_day", "Enter a date."))
			return
		}
		req.StartsAt = &d
	}
	last, err := time.ParseInLocation(time.DateOnly, f.Values["last_day"], loc)
	if err != nil {
		p.settingsAgain(c, "vacations", http.StatusUnprocessableEntity, "", f.invalid("last_day", "Enter the last day of your vacation."))
		return
	}
	req.EndsAt = last.AddDate(0, 0, 1) // the end of the last day
	if err := p.callAPI(c, http.MethodPost, "/v1/me/vacations", req, nil, c.PostForm("key")); err != nil {
		p.settingsFailed(c, "vacations", vacationWords(err), f)
		return
	}
	redirect(c, "/settings?done=vacation#vacations")
}

// vacationWords names the form's fields in the API's details about a
// vacation.
func vacationWords(err error) error {
	var ap *apiProblem
	if errors.As(err, &ap) {
		d := strings.NewReplacer("starts_at: not in the past", "the first day is in the past",
			"ends_at: after starts_at", "the last day comes before the first").Replace(ap.Detail)
		return &apiProblem{Status: ap.Status, Code: ap.Code, Detail: d}
	}
	return err
}

// createToken makes a personal API token (POST /v1/tokens) and shows its
// secret, once.
func (p *Pages) createToken(c *gin.Context) {
	f := formOf(c, "name")
	name := strings.TrimSpace(f.Values["name"])
	scopes := c.PostFormArray("scope")
	switch {
	case name == "" || len(name) > 64:
		p.settingsAgain(c, "tokens", http.StatusUnprocessableEntity, "", f.invalid("name", "Name the token (1 to 64 characters)."))
		return
	case len(scopes) == 0:
		p.settingsAgain(c, "tokens", http.StatusUnprocessableEntity, "Tick at least one of read and play.", f)
		return
	}
	var tok apiToken
	err := p.callAPI(c, http.MethodPost, "/v1/tokens", map[string]any{"name": name, "scopes": scopes}, &tok, c.PostForm("key"))
	if err != nil {
		p.settingsFailed(c, "tokens", err, f)
		return
	}
	sv, err := p.settingsData(c)
	if err != nil {
		p.fail(c, err)
		return
	}
	sv.NewToken = &tok
	p.render(c, http.StatusCreated, "settings", view{Form: settingsForm(c, form{}), Data: sv})
}

// calendarFeed reads the address of the user's calendar feed (GET
// /v1/me/calendar); nil when the feed is off.
func (p *Pages) calendarFeed(c *gin.Context) (*apiCalendar, error) {
	var cal apiCalendar
	err := p.callAPI(c, http.MethodGet, "/v1/me/calendar", nil, &cal, "")
	var ap *apiProblem
	if errors.As(err, &ap) && ap.Status == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &cal, nil
}

// newCalendar turns the user's calendar feed on, or gives it a new
// address (POST /v1/me/calendar): the old one stops working.
func (p *Pages) newCalendar(c *gin.Context) {
	if err := p.callAPI(c, http.MethodPost, "/v1/me/calendar", nil, nil, ""); err != nil {
		p.settingsFailed(c, "calendar", err, form{})
		return
	}
	redirect(c, "/settings?done=calendar#calendar")
}

// calendarOff turns the user's calendar feed off (DELETE
// /v1/me/calendar); off already, nothing changes.
func (p *Pages) calendarOff(c *gin.Context) {
	err := p.callAPI(c, http.MethodDelete, "/v1/me/calendar", nil, nil, "")
	var ap *apiProblem
	if err != nil && !(errors.As(err, &ap) && ap.Status == http.StatusNotFound) {
		p.settingsFailed(c, "calendar", err, form{})
		return
	}
	redirect(c, "/settings?done=calendar-off#calendar")
}

// revokeToken revokes one of the user's API tokens (DELETE /v1/tokens/{id}).
// endVacation ends the signed-in user's current vacation now, or cancels
// a coming one (DELETE /v1/me/vacations/{id}: the days not used go back to
// the year's allowance).
func (p *Pages) endVacation(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		p.fail(c, errNotFound)
		return
	}
	if err := p.callAPI(c, http.MethodDelete, "/v1/me/vacations/"+strconv.FormatInt(id, 10), nil, nil, ""); err != nil {
		p.settingsFailed(c, "vacations", vacationWords(err), form{})
		return
	}
	redirect(c, "/settings?done=vacation-ended#vacations")
}

func (p *Pages) revokeToken(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		p.fail(c, errNotFound)
		return
	}
	if err := p.callAPI(c, http.MethodDelete, "/v1/tokens/"+strconv.FormatInt(id, 10), nil, nil, ""); err != nil {
		p.settingsFailed(c, "tokens", err, form{})
		return
	}
	redirect(c, "/settings?done=revoked#tokens")
}

// deleteAccount deletes the signed-in user's account, once they have
// given their password and ticked the box: they resign every game in play,
// leave the open ones and cancel those they created (play.Service.ResignAll),
// then everything the account holds is deleted and its name and address
// taken off (models.Store.DeleteAccount). Password attempts count against
// the sign-in limit of the account.
func (p *Pages) deleteAccount(c *gin.Context) {
	a := account(c)
	ctx := c.Request.Context()
	wait, succeeded, err := p.api.LoginAttempt(c, a.Username)
	if err == nil && wait > 0 {
		err = &rateLimited{RetryAfter: wait}
	}
	if err != nil {
		p.fail(c, err)
		return
	}
	hash, err := p.store.PasswordHash(ctx, a.ID)
	if err != nil {
		p.fail(c, err)
		return
	}
	if !p.api.CheckPassword(hash, c.PostForm("password")) {
		p.settingsAgain(c, "delete", http.StatusUnauthorized, "", form{}.invalid("password", "That is not your password."))
		return
	}
	succeeded()
	if c.PostForm("confirm") == "" {
		p.settingsAgain(c, "delete", http.StatusUnprocessableEntity, "Tick the box that confirms you want your account deleted.", form{})
		return
	}
	ctx = context.WithoutCancel(ctx) // begun, it runs to its end
	if err := p.play.ResignAll(ctx, a.ID); err != nil {
		p.fail(c, err)
		return
	}
	if err := p.store.DeleteAccount(ctx, a.ID); err != nil {
		p.fail(c, err)
		return
	}
	p.clearCookie(c)
	redirect(c, "/?done=deleted")
}
