package web

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// The lobby's forms: a new game with every setting of the play path,
// and joining, leaving, starting and cancelling a game. Each translates
// its fields into one call of the play path and the answer into a page.

// newGamePath is the new game form's page; lobbyStatePath what the
// lobby's script polls (lobbyState).
const (
	newGamePath    = "/new-game"
	lobbyStatePath = "/lobby/state"
)

// newFormKey returns the start of the Idempotency-Keys of a page's forms:
// each form adds its own suffix, so that sending one form twice (a double
// click, a reload of the answer) does its change once.
func newFormKey() string { return hex.EncodeToString(notifier.NewNonce()) }

// webKey is the idempotency key under which the pages store a form's
// record: apart from the keys API clients choose.
func webKey(key string) string { return "web:" + key }

// maxFormKey is the longest key a form's record is kept under.
const maxFormKey = 100

// formRecord is the idempotency record of the request's form, named by
// its "key" field (nil without one, or with one too long to be a form's):
// the change it makes is done once, and a repeat is sent on to next.
func (p *Pages) formRecord(c *gin.Context, uid int64, next string) *play.Record {
	key := c.PostForm("key")
	if key == "" || len(key) > maxFormKey || !printable(key) {
		return nil
	}
	k := models.Key{UserID: uid, Key: webKey(key)}
	return &play.Record{Key: k, Make: func(*play.Result) (*models.Idempotency, error) {
		return &models.Idempotency{UserID: uid, Key: k.Key, RequestHash: formSum(c), Status: http.StatusSeeOther, Response: []byte(next)}, nil
	}}
}

// formSum is the SHA-256 of the request's path and form, which names the
// form as sent in its record.
func formSum(c *gin.Context) []byte {
	c.Request.ParseForm()
	sum := sha256.Sum256([]byte(c.Request.URL.Path + "\n" + c.Request.PostForm.Encode()))
	return sum[:]
}

// repeated reports whether err is what the play path answers to a form
// sent again whose change is done already (formAgain).
func (p *Pages) repeated(c *gin.Context, err error) bool {
	rec, _ := p.formAgain(c, err)
	return rec != nil
}

// formAgain reads what err, the play path's answer to the request's form,
// says of the form's key. A key with a stored record makes the change fail
// with models.ErrConflict: rec is that record when it is of this form as
// sent (formSum), a repeat whose change is done already. A record of other
// values under the key (a board shown twice, the cache of boards giving
// both the same keys, and another choice sent from the second; or the
// form sent to another game) did nothing of this form: why is then
// errFormReused, and otherwise err.
func (p *Pages) formAgain(c *gin.Context, err error) (rec *models.Idempotency, why error) {
	key := c.PostForm("key")
	if !errors.Is(err, models.ErrConflict) || key == "" {
		return nil, err
	}
	rec, rerr := p.store.IdempotencyRecord(c.Request.Context(), userOf(c), webKey(key))
	switch {
	case rerr != nil:
		return nil, err
	case !hmac.Equal(rec.RequestHash, formSum(c)):
		return nil, errFormReused
	}
	return rec, nil
}

// printable reports whether s is printable ASCII.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// deckOption is a deck to play with, in a menu: a prebuilt deck or one
// of the user's.
type deckOption struct {
	Value string // "prebuilt:<id>" or "deck:<id>"
	Label string
	Mine  bool
}

// deckOptions lists the prebuilt decks, then the user's own.
func (p *Pages) deckOptions(c *gin.Context, uid int64) ([]deckOption, error) {
	var out []deckOption
	for _, d := range engine.Standard().Decks() {
		out = append(out, deckOption{Value: "prebuilt:" + d.ID, Label: d.Name + " (prebuilt)"})
	}
	mine, err := p.store.Decks(c.Request.Context(), uid, 0, 100)
	if err != nil {
		return nil, err
	}
	for _, d := range mine {
		out = append(out, deckOption{Value: "deck:" + strconv.FormatInt(d.ID, 10), Label: d.Name, Mine: true})
	}
	return out, nil
}

// deckInfo is a prebuilt deck described for a player choosing one.
type deckInfo struct{ Name, Text string }

// prebuiltDecks describes the prebuilt decks (engine.Deck.Describe).
func prebuiltDecks() []deckInfo {
	cat := engine.Standard()
	var out []deckInfo
	for _, d := range cat.Decks() {
		out = append(out, deckInfo{Name: d.Name, Text: d.Describe(cat)})
	}
	return out
}

// deckChoice reads a deck menu's value; ok is false for one no menu has.
func deckChoice(v string) (play.DeckChoice, bool) {
	if id, ok := strings.CutPrefix(v, "prebuilt:"); ok && id != "" {
		return play.DeckChoice{Prebuilt: id}, true
	}
	if s, ok := strings.CutPrefix(v, "deck:"); ok {
		if id, err := strconv.ParseInt(s, 10, 64); err == nil && id > 0 {
			return play.DeckChoice{DeckID: id}, true
		}
	}
	return play.DeckChoice{}, false
}

// durationOption is one choice of a deadline menu.
type durationOption struct {
	Seconds int
	Label   string
}

// deadlineOptions are the deadlines a new game offers, from five minutes
// (a game played at one sitting) to two weeks.
var deadlineOptions = []durationOption{
	{300, "5 minutes"}, {3600, "1 hour"}, {6 * 3600, "6 hours"}, {12 * 3600, "12 hours"}, {86400, "1 day"},
	{2 * 86400, "2 days"}, {3 * 86400, "3 days"}, {7 * 86400, "1 week"}, {14 * 86400, "2 weeks"},
}

// newGameView is the new game form's data.
type newGameView struct {
	Decks     []deckOption
	Prebuilt  []deckInfo // what each prebuilt deck plays like
	Deadlines []durationOption
	Bots      []int
	FormKey   string
}

// newGameDefaults are the form's values before anything is chosen: the
// play path's defaults.
func newGameDefaults() form {
	return form{Values: map[string]string{"players": "2", "mode": string(engine.ModeStandard), "policy": string(engine.Holders),
		"turn_deadline": strconv.Itoa(play.DefaultTurnDeadline), "prompt_deadline": strconv.Itoa(play.DefaultPromptDeadline),
		"timeout_limit": strconv.Itoa(play.DefaultTimeoutLimit), "on_timeouts": play.OnTimeoutsBot, "public": "on", "bots": "0",
		"respect_quiet_hours": "on"}}
}

// newGamePage shows the form of a new game.
func (p *Pages) newGamePage(c *gin.Context) error {
	return p.newGameAgain(c, http.StatusOK, "", newGameDefaults())
}

// newGameAgain shows the form with f's values and errors.
func (p *Pages) newGameAgain(c *gin.Context, status int, problem string, f form) error {
	decks, err := p.deckOptions(c, account(c).ID)
	if err != nil {
		return err
	}
	nv := newGameView{Decks: decks, Deadlines: deadlineOptions, Bots: []int{0, 1, 2, 3}, FormKey: newFormKey(), Prebuilt: prebuiltDecks()}
	p.render(c, status, "new-game", view{Problem: problem, Form: f, Data: nv})
	return nil
}

// newGameFields are the new game form's fields, kept to show it again.
var newGameFields = []string{"players", "mode", "office", "deck", "invite", "bots", "turn_deadline", "prompt_deadline",
	"policy", "timeout_limit", "on_timeouts", "public", "spectator_messages", "respect_quiet_hours"}

// createGame opens a game with the form's settings (play.Create), then
// mails the invitations of the addresses it names.
func (p *Pages) createGame(c *gin.Context) error {
	f := formOf(c, newGameFields...)
	a := account(c)
	atoi := func(name string) int {
		n, err := strconv.Atoi(strings.TrimSpace(f.Values[name]))
		if err != nil {
			f = f.invalid(name, "Choose a number.")
		}
		return n
	}
	n := play.NewGame{Players: atoi("players"), Mode: f.Values["mode"], Office: f.Values["office"] != "", Policy: f.Values["policy"],
		Bots: atoi("bots"), TurnDeadlineSeconds: atoi("turn_deadline"), PromptDeadlineSeconds: atoi("prompt_deadline"),
		OnTimeouts: f.Values["on_timeouts"], SpectatorMessages: f.Values["spectator_messages"] != "",
		IgnoreQuietHours: f.Values["respect_quiet_hours"] == ""}
	public := f.Values["public"] != ""
	n.Public = &public
	limit := atoi("timeout_limit")
	n.TimeoutLimit = &limit
	deck, ok := deckChoice(f.Values["deck"])
	if !ok {
		f = f.invalid("deck", "Choose a deck.")
	}
	n.Deck = deck
	names, addrs, bad := splitInvites(f.Values["invite"])
	switch {
	case bad != "":
		f = f.invalid("invite", "“"+bad+"” is neither a username nor an email address.")
	case invalidAddress(p, addrs) != "":
		f = f.invalid("invite", "“"+invalidAddress(p, addrs)+"” is not an email address we can write to.")
	case len(addrs) > 0 && len(names)+len(addrs)+n.Bots > n.Players-1:
		// The play path counts the usernames and bots; the addresses are
		// the pages' own, and take the open seats.
		room := max(n.Players-1-n.Bots, 0)
		f = f.invalid("invite", "A game of "+strconv.Itoa(n.Players)+" players with "+strconv.Itoa(n.Bots)+" bots has room for "+
			strconv.Itoa(room)+map[bool]string{true: " invited player.", false: " invited players."}[room == 1])
	}
	n.Invite = names
	if len(f.Errors) > 0 {
		return p.newGameAgain(c, http.StatusUnprocessableEntity, "", f)
	}
	if len(addrs) > 0 {
		if err := p.attempt(c, "invite", strconv.FormatInt(a.ID, 10)); err != nil {
			return err
		}
	}
	res, err := p.play.Create(c.Request.Context(), a.ID, n, p.formRecord(c, a.ID, "/"))
	if err != nil {
		var rec *models.Idempotency
		if rec, err = p.formAgain(c, err); rec != nil {
			redirect(c, "/")
			return nil
		}
		status, ev := problemFor(err)
		if status >= 500 {
			return err
		}
		var pe *play.Error
		if errors.As(err, &pe) {
			if field, _, ok := strings.Cut(pe.Detail, ":"); ok {
				f = f.invalid(formField(field), sentence(pe.Detail))
				return p.newGameAgain(c, status, "", f)
			}
		}
		return p.newGameAgain(c, status, ev.Title+". "+ev.Message, f)
	}
	g := res.Game
	done := "created"
	for _, addr := range addrs {
		if err := p.inviteAddress(c, g, a, addr); err != nil {
			p.log.Warn("invitation mail", "game_id", g.ID, "error", err)
			done = "created-x"
		}
	}
	redirect(c, gamePath(g.ID)+"?done="+done)
	return nil
}

// formField names the form's field for a field of the play path's
// refusals ("turn_deadline_seconds: 60 to ..." is the turn_deadline menu).
func formField(field string) string {
	switch field {
	case "turn_deadline_seconds":
		return "turn_deadline"
	case "prompt_deadline_seconds":
		return "prompt_deadline"
	case "deck":
		return "deck"
	}
	return field
}

// invalidAddress returns the first of addrs the API would not take as an
// address, "" for none.
func invalidAddress(p *Pages, addrs []string) string {
	for _, a := range addrs {
		if !accounts.ValidEmail(a) {
			return a
		}
	}
	return ""
}

// splitInvites splits the invite field at commas, semicolons and spaces
// into usernames and email addresses (those with an @). bad is the first
// entry that is neither.
func splitInvites(s string) (names, addrs []string, bad string) {
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
		switch {
		case strings.Contains(f, "@"):
			addrs = append(addrs, f)
		case len(f) <= 64:
			names = append(names, strings.TrimPrefix(f, "@"))
		default:
			return nil, nil, f
		}
	}
	return names, addrs, ""
}

// join seats the signed-in user in an open game with the deck chosen.
func (p *Pages) join(c *gin.Context) error {
	id := gameID(c)
	if id == 0 {
		return errNotFound
	}
	deck, ok := deckChoice(c.PostForm("deck"))
	if !ok {
		return p.boardAgain(c, id, &pageError{http.StatusUnprocessableEntity, "Choose a deck", "Pick the deck you play with, then take the seat."})
	}
	uid := account(c).ID
	res, err := p.play.Join(c.Request.Context(), id, uid, deck, p.formRecord(c, uid, gamePath(id)+"?done=joined"))
	return p.changed(c, id, res, err, gamePath(id)+"?done=joined")
}

// leave gives up the signed-in user's seat before the start.
func (p *Pages) leave(c *gin.Context) error {
	return p.lobbyChange(c, p.play.Leave, "/?done=left")
}

// start deals the game.
func (p *Pages) start(c *gin.Context) error {
	id := gameID(c)
	return p.lobbyChange(c, p.play.Start, gamePath(id)+"?done=started")
}

// cancel cancels a game that has not started.
func (p *Pages) cancel(c *gin.Context) error {
	return p.lobbyChange(c, p.play.Cancel, "/?done=cancelled")
}

// lobbyChange makes the change op of the game in the path for the
// signed-in user, and goes on to next.
func (p *Pages) lobbyChange(c *gin.Context, op func(ctx context.Context, id, uid int64, rec *play.Record) (*play.Result, error), next string) error {
	id := gameID(c)
	if id == 0 {
		return errNotFound
	}
	uid := account(c).ID
	res, err := op(c.Request.Context(), id, uid, p.formRecord(c, uid, next))
	return p.changed(c, id, res, err, next)
}

// decline turns down the signed-in user's invitation to a game that has
// not started (play.Service.Decline): the seat opens for someone else.
func (p *Pages) decline(c *gin.Context) error {
	return p.lobbyChange(c, p.play.Decline, "/?done=declined")
}

// rematch opens a new game like the finished one in the path, with the
// same players invited (play.Service.Rematch), and shows it.
func (p *Pages) rematch(c *gin.Context) error {
	id := gameID(c)
	if id == 0 {
		return errNotFound
	}
	uid := account(c).ID
	// The new game's path is known only once it is made: the record
	// stores it, so that the form sent again goes there too.
	rec := p.formRecord(c, uid, "")
	if rec != nil {
		mk := rec.Make
		rec.Make = func(r *play.Result) (*models.Idempotency, error) {
			m, err := mk(r)
			if err == nil {
				m.Response = []byte(gamePath(r.Game.ID) + "?done=rematch")
			}
			return m, err
		}
	}
	res, err := p.play.Rematch(c.Request.Context(), id, uid, rec)
	if err != nil {
		var done *models.Idempotency
		if done, err = p.formAgain(c, err); done != nil {
			redirect(c, localPath(string(done.Response)))
			return nil
		}
		return p.boardAgain(c, id, err)
	}
	res.Done()
	done := "rematch"
	if res.Game.Status == models.StatusActive {
		done = "rematch-started"
	}
	redirect(c, gamePath(res.Game.ID)+"?done="+done)
	return nil
}
