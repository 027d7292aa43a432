package web

import (
	"crypto/cipher"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/internal/mac"
	"github.com/datamonsters/turns/internal/router"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/refusal"
	"github.com/gin-gonic/gin"
)

// The settings call the accounts (package accounts) as the JSON API does:
// the pages translate a form to a call and the answer to a page.

// vacationItem is a vacation on the settings page.
type vacationItem struct {
	ID       int64
	StartsAt time.Time
	EndsAt   time.Time
}

// LastDay is a moment of the vacation's last day (it ends at the start of
// the next).
func (v vacationItem) LastDay() time.Time { return v.EndsAt.Add(-time.Second) }

// vacationsView is the player's vacations and this year's allowance.
type vacationsView struct {
	Vacations     []vacationItem
	AllowanceDays int
	DaysLeft      int
}

// tokenItem is a personal API token on the settings page; Token is its
// secret, only just after it was made.
type tokenItem struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Scopes     []string   `json:"scopes"`
	LastUsedAt *time.Time `json:"last_used_at"`
	Token      string     `json:"token,omitempty"`
}

func tokenOf(t *models.APIToken) tokenItem {
	return tokenItem{ID: t.ID, Name: t.Name, Prefix: t.Prefix, Scopes: t.ScopeList(), LastUsedAt: t.LastUsedAt}
}

// calendarView is the address of the calendar feed.
type calendarView struct {
	URL       string
	WebcalURL string
	CreatedAt time.Time
}

// Webcal is the feed's address with the webcal scheme, which a calendar
// app opens to subscribe; html/template would refuse the scheme, and the
// address is the service's own (its base URL and a token), so it is
// trusted when it is webcal:// and nothing else.
func (c calendarView) Webcal() template.URL {
	if !strings.HasPrefix(c.WebcalURL, "webcal://") {
		return ""
	}
	return template.URL(c.WebcalURL)
}

// settingsView is the settings page's data.
type settingsView struct {
	Replies   bool // the user's decision emails take replies with moves (see replies.go)
	RepliesIn bool // replies to emails come in at all (Config.Replies): the switch is shown
	Zones     []zoneGroup
	Channels  []channelItem
	Kinds     []kindItem // notification kinds, each with a box per channel
	// DigestHours are the periods the digest may have, the player's
	// selected (see digestChoices).
	DigestHours []hourChoice
	Vacations   vacationsView
	Tokens      []tokenItem
	NewToken    *tokenItem    // the token just created, shown once
	Calendar    *calendarView // the calendar feed's address; nil: the feed is off
	FormKey     string        // the Idempotency-Key of the page's create forms
	Today       string        // the user's date, for the date inputs' minimum

	Quiet accounts.Quiet // the player's quiet hours
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
		notifier.KindSeatReclaimed: "You take your seat back from the bot", notifier.KindDigest: "Digest",
	}
	channelWords = map[string]string{notifier.ChannelEmail: "Email", notifier.ChannelWebhook: "Webhooks", notifier.ChannelStream: "Live stream"}
)

// hourChoice is a period the digest may have, in words.
type hourChoice struct {
	Hours    int
	Label    string
	Selected bool
}

// digestPeriods are the periods the settings offer for the digest (the
// accounts take any from 1 to accounts.MaxDigestHours; a period chosen
// through the API is offered too).
var digestPeriods = []int{4, 8, 12, 24, 48, 168}

// digestChoices are the digest's periods, the current one selected.
func digestChoices(current int) []hourChoice {
	hours := digestPeriods
	if !slices.Contains(hours, current) {
		hours = slices.Sorted(slices.Values(append(slices.Clone(hours), current)))
	}
	out := make([]hourChoice, len(hours))
	for i, h := range hours {
		out[i] = hourChoice{Hours: h, Label: everyHours(h), Selected: h == current}
	}
	return out
}

// everyHours says a digest's period: "every 8 hours", "every 24 hours (once
// a day)".
func everyHours(h int) string {
	s := "every " + strconv.Itoa(h) + " hours"
	switch h {
	case 1:
		return "every hour"
	case 24:
		s += " (once a day)"
	case 168:
		s += " (once a week)"
	}
	return s
}

// settings shows the settings page.
func (p *Pages) settings(c *gin.Context) error {
	sv, err := p.settingsData(c)
	if err != nil {
		return err
	}
	p.render(c, http.StatusOK, "settings", view{Form: quietForm(settingsForm(c, form{}), sv.Quiet), Data: sv})
	return nil
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

// settingsData reads what the settings page shows, from the accounts.
func (p *Pages) settingsData(c *gin.Context) (*settingsView, error) {
	ctx, uid := c.Request.Context(), account(c).ID
	sv := &settingsView{Zones: zoneGroups, FormKey: newFormKey(), Today: p.now().In(location(account(c))).Format(time.DateOnly)}
	prefs, err := p.acc.Preferences(ctx, uid)
	if err != nil {
		return nil, err
	}
	vs, err := p.acc.Vacations(ctx, uid)
	if err != nil {
		return nil, err
	}
	sv.Vacations = vacationsView{AllowanceDays: accounts.VacationDaysPerYear, DaysLeft: int(vs.Left / (24 * time.Hour))}
	for _, v := range vs.Vacations {
		sv.Vacations.Vacations = append(sv.Vacations.Vacations, vacationItem{ID: v.ID, StartsAt: v.StartsAt, EndsAt: v.EndsAt})
	}
	toks, err := p.acc.Tokens(ctx, uid)
	if err != nil {
		return nil, err
	}
	for i := range toks {
		sv.Tokens = append(sv.Tokens, tokenOf(&toks[i]))
	}
	if sv.Calendar, err = p.calendarFeed(c); err != nil {
		return nil, err
	}
	if sv.Quiet, err = p.acc.QuietHours(ctx, uid); err != nil {
		return nil, err
	}
	if sv.RepliesIn = p.cfg.Replies; sv.RepliesIn {
		replies, err := p.repliesOn(c)
		if err != nil {
			return nil, err
		}
		sv.Replies = replies
	}
	enabled := map[string]bool{}
	hours := models.DefaultDigestHours
	for _, pr := range prefs {
		enabled[pr.Kind+"/"+pr.Channel] = pr.Enabled
		if pr.Hours > 0 {
			hours = pr.Hours // the digest's row
		}
	}
	sv.DigestHours = digestChoices(hours)
	for _, ch := range notifier.Channels {
		sv.Channels = append(sv.Channels, channelItem{Name: ch, Label: channelWords[ch]})
	}
	for _, k := range notifier.Kinds {
		ki := kindItem{Label: kindWords[k]}
		if k == notifier.KindDigest {
			ki.Label += " " + everyHours(hours)
		}
		for _, ch := range notifier.Channels {
			v := string(k) + "/" + ch
			ki.Boxes = append(ki.Boxes, prefBox{Value: v, Label: kindWords[k] + " by " + strings.ToLower(channelWords[ch]), Enabled: enabled[v]})
		}
		sv.Kinds = append(sv.Kinds, ki)
	}
	return sv, nil
}

// settingsAgain shows the settings page again with what went wrong in
// section, for an error the user can fix (a field, a rule of the
// accounts); other errors get the error page.
func (p *Pages) settingsAgain(c *gin.Context, section string, status int, msg string, f form) error {
	sv, err := p.settingsData(c)
	if err != nil {
		return err
	}
	p.render(c, status, "settings", view{Section: section, Problem: msg, Form: quietForm(settingsForm(c, f), sv.Quiet), Data: sv})
	return nil
}

// settingsFailed is settingsAgain for a refusal of the accounts the user
// can do something about (not a temporary one), with its status and
// detail; else the error page.
func (p *Pages) settingsFailed(c *gin.Context, section string, err error, f form) error {
	var re *refusal.Error
	if errors.As(err, &re) && !re.Kind.Temporary() {
		return p.settingsAgain(c, section, re.Kind.Status(), sentence(re.Detail), f)
	}
	return err
}

// errFormReused is a form sent again with its key and other values (the
// page went back, and its fields were changed).
var errFormReused = refusal.New(refusal.Invalid, "form_reused", "this form was sent before with other values; reload the page and send it again")

// once does the change of a settings form once: a form sent again with its
// key (its "key" field; a double click, a reload of the answer) gets the
// answer the first stored, and nothing is done again. do makes the change
// with the accounts it is given, which act in the transaction that stores
// the form's record (under the form's key, as the lobby's forms store
// theirs); what it returns is kept in the record sealed (sealed). Without a
// key, do runs once and for all.
func (p *Pages) once(c *gin.Context, do func(acc *accounts.Service) ([]byte, error)) (out []byte, err error) {
	key, uid := c.PostForm("key"), account(c).ID
	if key == "" || len(key) > 100 || !printable(key) {
		return do(p.acc)
	}
	ctx := c.Request.Context()
	done := func() ([]byte, bool, error) {
		rec, err := p.store.IdempotencyRecord(ctx, uid, webKey(key))
		switch {
		case errors.Is(err, models.ErrNotFound):
			return nil, false, nil
		case err != nil:
			return nil, false, err
		case !hmac.Equal(rec.RequestHash, formSum(c)):
			return nil, true, errFormReused
		}
		out, err := p.sealed(c).Open(nil, rec.Response[:12], rec.Response[12:], []byte(rec.Key))
		return out, true, err
	}
	if out, ok, err := done(); ok || err != nil {
		return out, err
	}
	err = p.store.InTx(ctx, func(tx *models.Store) error {
		var err error
		if out, err = do(p.acc.In(tx)); err != nil {
			return err
		}
		nonce := notifier.NewNonce() // 12 bytes, GCM's
		rec := &models.Idempotency{UserID: uid, Key: webKey(key), RequestHash: formSum(c), Status: http.StatusCreated}
		rec.Response = p.sealed(c).Seal(nonce, nonce, out, []byte(rec.Key))
		return tx.SaveIdempotency(ctx, rec)
	})
	if errors.Is(err, models.ErrConflict) { // a copy of the form stored its record meanwhile
		if prior, ok, derr := done(); ok {
			return prior, derr
		}
	}
	return out, err
}

// sealed is the AES-256-GCM of the request's form records: its key comes
// from the link secret and the form as sent, which the record does not
// hold, so that only a repeat of the form opens it (an API token's secret
// is in one).
func (p *Pages) sealed(c *gin.Context) cipher.AEAD {
	c.Request.ParseForm()
	return mac.AEAD(p.cfg.Secret, "settings form record", []byte(c.Request.URL.Path+"\n"+c.Request.PostForm.Encode()))
}

// changeEmail changes the user's address and mails a link to verify the
// new one.
func (p *Pages) changeEmail(c *gin.Context) error {
	f := formOf(c, "email")
	addr := strings.TrimSpace(f.Values["email"])
	if addr == "" || !accounts.ValidEmail(addr) {
		return p.settingsAgain(c, "email", http.StatusUnprocessableEntity, "", f.invalid("email", "Enter an email address such as ana@example.com."))
	}
	a := account(c)
	if addr == a.Email {
		redirect(c, "/settings")
		return nil
	}
	if _, err := p.acc.UpdateProfile(c.Request.Context(), a.ID, accounts.ProfileChange{Email: &addr}); err != nil {
		return p.settingsFailed(c, "email", err, f)
	}
	changed := *a
	changed.Email = addr
	if err := p.sendMail(c.Request.Context(), verifyWords(addr, verifyTTL), &changed, p.verifyURL(&changed)); err != nil {
		p.log.Warn("verification mail", "user_id", a.ID, "error", err)
		redirect(c, "/settings?done=email-x")
		return nil
	}
	redirect(c, "/settings?done=email")
	return nil
}

// changeTimeZone stores the user's time zone.
func (p *Pages) changeTimeZone(c *gin.Context) error {
	zone := c.PostForm("time_zone")
	if !accounts.ValidZone(zone) {
		return p.settingsAgain(c, "time-zone", http.StatusUnprocessableEntity, "", form{}.invalid("time_zone", "Choose a time zone from the list."))
	}
	if err := p.acc.SetTimeZone(c.Request.Context(), account(c).ID, zone); err != nil {
		return err
	}
	redirect(c, "/settings?done=time-zone")
	return nil
}

// changePreferences sets every notification preference from the form's
// boxes: a box left unticked turns that notification off; and the
// digest's period, when the form has one.
func (p *Pages) changePreferences(c *gin.Context) error {
	on := map[string]bool{}
	for _, v := range c.PostFormArray("pref") {
		on[v] = true
	}
	hours := 0 // unchanged
	if v := c.PostForm("digest_hours"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > accounts.MaxDigestHours {
			return p.settingsAgain(c, "notifications", http.StatusUnprocessableEntity,
				"Choose how often the digest comes: every 1 to "+strconv.Itoa(accounts.MaxDigestHours)+" hours.", form{})
		}
		hours = n
	}
	var ps []accounts.Preference
	for _, k := range notifier.Kinds {
		for _, ch := range notifier.Channels {
			pr := accounts.Preference{Kind: string(k), Channel: ch, Enabled: on[string(k)+"/"+ch]}
			if pr.Kind == models.DigestKind && pr.Channel == models.DigestChannel {
				pr.Hours = hours
			}
			ps = append(ps, pr)
		}
	}
	if err := p.acc.SetPreferences(c.Request.Context(), account(c).ID, ps); err != nil {
		return p.settingsFailed(c, "notifications", err, form{})
	}
	redirect(c, "/settings?done=notify#notifications")
	return nil
}

// startVacation books a vacation from the first day (empty or today: from
// now) to the last day, both whole days in the user's time zone. A form
// sent twice books it once.
func (p *Pages) startVacation(c *gin.Context) error {
	f := formOf(c, "first_day", "last_day")
	a := account(c)
	loc := location(a)
	now := p.now().In(loc)
	var start *time.Time
	if s := f.Values["first_day"]; s != "" && s != now.Format(time.DateOnly) {
		d, err := time.ParseInLocation(time.DateOnly, s, loc)
		if err != nil {
			return p.settingsAgain(c, "vacations", http.StatusUnprocessableEntity, "", f.invalid("first_day", "Enter a date."))
		}
		start = &d
	}
	last, err := time.ParseInLocation(time.DateOnly, f.Values["last_day"], loc)
	if err != nil {
		return p.settingsAgain(c, "vacations", http.StatusUnprocessableEntity, "", f.invalid("last_day", "Enter the last day of your vacation."))
	}
	v, err := p.acc.NewVacation(a.ID, start, last.AddDate(0, 0, 1)) // to the end of the last day
	if err == nil {
		_, err = p.once(c, func(acc *accounts.Service) ([]byte, error) { return nil, acc.BookVacation(c.Request.Context(), &v) })
	}
	if err != nil {
		return p.settingsFailed(c, "vacations", vacationWords(err), f)
	}
	redirect(c, "/settings?done=vacation#vacations")
	return nil
}

// vacationWords names the form's fields in the accounts' details about a
// vacation.
func vacationWords(err error) error {
	var re *refusal.Error
	if errors.As(err, &re) {
		d := strings.NewReplacer("starts_at: not in the past", "the first day is in the past",
			"ends_at: after starts_at", "the last day comes before the first").Replace(re.Detail)
		return &refusal.Error{Kind: re.Kind, Code: re.Code, Detail: d}
	}
	return err
}

// createToken makes a personal API token and shows its secret, once (and
// again for the same form sent twice).
func (p *Pages) createToken(c *gin.Context) error {
	f := formOf(c, "name")
	name := strings.TrimSpace(f.Values["name"])
	scopes := c.PostFormArray("scope")
	switch {
	case name == "" || len(name) > accounts.MaxTokenName:
		return p.settingsAgain(c, "tokens", http.StatusUnprocessableEntity, "", f.invalid("name", "Name the token (1 to 64 characters)."))
	case len(scopes) == 0:
		return p.settingsAgain(c, "tokens", http.StatusUnprocessableEntity, "Tick at least one of read and play.", f)
	}
	out, err := p.once(c, func(acc *accounts.Service) ([]byte, error) {
		t, secret, err := accounts.NewToken(account(c).ID, name, scopes)
		if err != nil {
			return nil, err
		}
		if err := acc.SaveToken(c.Request.Context(), t); err != nil {
			return nil, err
		}
		made := tokenOf(t)
		made.Token = secret
		return json.Marshal(made)
	})
	var tok tokenItem
	if err == nil {
		err = json.Unmarshal(out, &tok)
	}
	if err != nil {
		return p.settingsFailed(c, "tokens", err, f)
	}
	sv, err := p.settingsData(c)
	if err != nil {
		return err
	}
	sv.NewToken = &tok
	p.render(c, http.StatusCreated, "settings", view{Form: settingsForm(c, form{}), Data: sv})
	return nil
}

// calendarFeed reads the address of the user's calendar feed; nil when
// the feed is off (or its address can no longer be shown: a new one can).
func (p *Pages) calendarFeed(c *gin.Context) (*calendarView, error) {
	f, err := p.acc.CalendarFeed(c.Request.Context(), account(c).ID)
	if refusal.KindOf(err) == refusal.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &calendarView{URL: f.URL(p.cfg.BaseURL), WebcalURL: f.WebcalURL(p.cfg.BaseURL), CreatedAt: f.CreatedAt}, nil
}

// newCalendar turns the user's calendar feed on, or gives it a new
// address: the old one stops working.
func (p *Pages) newCalendar(c *gin.Context) error {
	if _, err := p.acc.NewCalendarFeed(c.Request.Context(), account(c).ID); err != nil {
		return p.settingsFailed(c, "calendar", err, form{})
	}
	redirect(c, "/settings?done=calendar#calendar")
	return nil
}

// calendarOff turns the user's calendar feed off; off already, nothing
// changes.
func (p *Pages) calendarOff(c *gin.Context) error {
	err := p.acc.DeleteCalendarFeed(c.Request.Context(), account(c).ID)
	if err != nil && !errors.Is(err, models.ErrNotFound) {
		return p.settingsFailed(c, "calendar", err, form{})
	}
	redirect(c, "/settings?done=calendar-off#calendar")
	return nil
}

// endVacation ends the signed-in user's current vacation now, or cancels
// a coming one (the days not used go back to the year's allowance).
func (p *Pages) endVacation(c *gin.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return errNotFound
	}
	if err := p.acc.EndVacation(c.Request.Context(), account(c).ID, id); err != nil {
		return p.settingsFailed(c, "vacations", vacationWords(err), form{})
	}
	redirect(c, "/settings?done=vacation-ended#vacations")
	return nil
}

// revokeToken revokes one of the user's API tokens.
func (p *Pages) revokeToken(c *gin.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return errNotFound
	}
	if err := p.acc.RevokeToken(c.Request.Context(), account(c).ID, id); err != nil {
		return p.settingsFailed(c, "tokens", err, form{})
	}
	redirect(c, "/settings?done=revoked#tokens")
	return nil
}

// deleteAccount deletes the signed-in user's account, once they have
// given their password and ticked the box (accounts.Service.Delete).
// Password attempts count against the sign-in limit of the account.
func (p *Pages) deleteAccount(c *gin.Context) error {
	a := account(c)
	ctx := c.Request.Context()
	_, tally, err := p.acc.CheckPassword(ctx, router.ClientAddress(c), &a.User, c.PostForm("password"))
	router.RateHeaders(c, tally)
	if errors.Is(err, accounts.ErrWrongPassword) {
		return p.settingsAgain(c, "delete", http.StatusUnauthorized, "", form{}.invalid("password", "That is not your password."))
	}
	if err != nil {
		return err
	}
	if c.PostForm("confirm") == "" {
		return p.settingsAgain(c, "delete", http.StatusUnprocessableEntity, "Tick the box that confirms you want your account deleted.", form{})
	}
	if err := p.acc.Delete(ctx, a.ID); err != nil {
		return err
	}
	p.clearCookie(c)
	redirect(c, "/?done=deleted")
	return nil
}
