package web

import (
	"cmp"
	"encoding/hex"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// The action links of decision emails (notifier.ActionURL): each names one
// numbered line (engine.Numbered) of what its recipient may do at the
// version the email was written for, signed and bound to that version and
// number. Its page (GET) shows the action on the board and changes
// nothing, since mail scanners open links; its button posts, and the post
// applies the action once, at that version, with an idempotency key made
// from the link's nonce: a second post replays, a stale version says the
// game moved on.
//
// The link is the credential for that one action of that user: a
// recipient who is not signed in (or a browser signed in as someone else)
// may confirm it without a password, and is not signed in by it. Signing in
// would turn a link that is forwarded, or read by anyone who sees the
// mail, into a whole session (every game, the settings, API tokens);
// bound to one action at one version, its power ends with that action.
// Without a session of the recipient the board shown is the public one:
// the link shows what its mail said, and no more.

// confirmView is what the page of an action link says above the board.
type confirmView struct {
	State     string // "ok", "done" (confirmed before), "stale" (the game moved on), "options" (one option of several to choose)
	Text      string // what the line does
	Prompt    string // for an option of a prompt: the question
	Hint      string // for an option of a prompt: how many to choose
	Recipient string
	Yours     bool   // the browser is signed in as the recipient
	Other     string // the browser is signed in as someone else
	Token     string
	actionRef
	Current int64  // the game's version now
	Title   string // the heading of a line that cannot be confirmed ("stale" and no Current); "" for "The game moved on"
	Problem string
}

// Errors of action links.
var (
	errActionLink = &pageError{http.StatusBadRequest, "This link is not valid",
		"It may have been cut short by your mail program, or it was not made by this site. Open the game to see what you may do."}
	errActionExpired = &pageError{http.StatusGone, "This link expired",
		"An action link works until the game's deadline, for a week at most. Open the game to see what you may do now."}
)

// actionRef is what an action link names: line N of the lines numbered at
// version V, whose digest is D (engine.Digest; 0 for a link made before
// digests).
type actionRef struct {
	V int64
	N int
	D uint32
}

// actionLink checks the action link of game id named by t, v, n and d
// (from the query or the form): a *pageError for one that is malformed,
// forged, for another game, or expired.
func (p *Pages) actionLink(c *gin.Context, id int64, t, v, n, d string) (checkedLink, actionRef, error) {
	version, err1 := strconv.ParseInt(v, 10, 64)
	num, err2 := strconv.Atoi(n)
	digest, err3 := uint64(0), error(nil)
	if d != "" {
		digest, err3 = strconv.ParseUint(d, 10, 32)
	}
	if err1 != nil || err2 != nil || err3 != nil || version <= 0 || num <= 0 || d != "" && digest == 0 {
		return checkedLink{}, actionRef{}, errActionLink
	}
	ref := actionRef{V: version, N: num, D: uint32(digest)}
	l, err := p.checkLink(c, t, notifier.LinkAction, func(*models.Account) ([]byte, error) {
		return notifier.ActionBound(ref.V, ref.N, ref.D), nil
	})
	switch {
	case err != nil:
		return l, actionRef{}, err
	case l.State == linkInvalid || l.GameID != id || len(l.Nonce) == 0:
		return l, actionRef{}, errActionLink
	case l.State == linkExpired:
		return l, actionRef{}, errActionExpired
	}
	return l, ref, nil
}

// actionKey is the idempotency key of an action link: one per link.
func actionKey(l checkedLink) string { return webKey("act:" + hex.EncodeToString(l.Nonce)) }

// actionPath is the path of the action link.
func actionPath(id int64, ref actionRef, token string) string {
	return gamePath(id) + notifier.ActionPath + notifier.ActionQuery(ref.V, ref.N, ref.D, token)
}

// errNoLine: the link's number names no line of the version it is bound
// to (a link made for someone else's list).
var errNoLine = &pageError{http.StatusConflict, "Nothing to confirm", "This link names no action you may take in this game now."}

// errListChanged: the lines at the link's version are not the lines its
// email showed, since the service numbers or words them differently now.
var errListChanged = &pageError{http.StatusConflict, "This email’s list is out of date",
	"The moves are numbered differently since this email was written, so its link may not name the move it showed. Nothing was played. Open the game to see what you may do."}

// actionLine reads line ref.N of what user uid may do in game id, if the
// game is still at version ref.V and its lines are the ones the link's
// email showed: the line, the actions choosing it alone submits
// (engine.Choose) and, for an option of a prompt, the prompt's question
// and hint. At another version it gives *play.StaleVersionError.
func (p *Pages) actionLine(c *gin.Context, id, uid int64, ref actionRef) (cv confirmView, actions []engine.Action, err error) {
	n := ref.N
	err = p.play.Read(c.Request.Context(), id, uid, func(g *models.Game, seat int, st *engine.State) error {
		if g.Version != ref.V || st == nil || seat < 0 {
			return &play.StaleVersionError{Current: g.Version}
		}
		moves := st.View(seat).Moves(engine.Legal(st, seat))
		lines, same := engine.NumberedFor(moves, ref.D)
		if !same {
			return errListChanged
		}
		if n > len(lines) {
			return errNoLine
		}
		l := lines[n-1]
		cv.Text = l.Text
		if !l.Whole() {
			i := slices.IndexFunc(moves, func(m engine.Move) bool { return m.Prompt == l.Prompt && m.Type == engine.ActAnswer })
			if i >= 0 {
				cv.Prompt, cv.Hint = moves[i].Text, chooseHint(moves[i].Min, moves[i].Max)
				if moves[i].Min > 1 {
					cv.State = "options"
				}
			}
		}
		chosen, err := engine.Choose(lines, []int{n})
		if err != nil {
			return errNoLine
		}
		for _, a := range chosen {
			a.Challenges, a.Choices = slices.Clone(a.Challenges), slices.Clone(a.Choices)
			actions = append(actions, a)
		}
		return nil
	})
	return cv, actions, err
}

// actPage shows what an action link does, on the board, and the button
// that confirms it. It changes nothing.
func (p *Pages) actPage(c *gin.Context) error {
	return p.actionAnswer(c, c.Query("t"), c.Query("v"), c.Query("n"), c.Query("d"), nil)
}

// act confirms an action link: the action is applied once.
func (p *Pages) act(c *gin.Context) error {
	id := gameID(c)
	t, v, n, d := c.PostForm("t"), c.PostForm("v"), c.PostForm("n"), c.PostForm("d")
	l, ref, err := p.actionLink(c, id, t, v, n, d)
	if err != nil {
		return err
	}
	uid := l.Account.ID
	key := actionKey(l)
	back := actionPath(id, ref, t)
	_, actions, err := p.actionLine(c, id, uid, ref)
	if err == nil {
		var res *play.Result
		rec := &play.Record{Key: models.Key{UserID: uid, Key: key}, Make: func(*play.Result) (*models.Idempotency, error) {
			return &models.Idempotency{UserID: uid, Key: key, RequestHash: l.Nonce, Status: http.StatusSeeOther, Response: []byte(back)}, nil
		}}
		res, err = p.play.Submit(c.Request.Context(), id, uid, &ref.V, actions, rec)
		if err == nil || errors.Is(err, models.ErrConflict) {
			res.Done()
			redirect(c, back)
			return nil
		}
	}
	// Confirmed before (a repeat, or a copy sent at once, such as a double
	// click, that applied it while this one read the line): the action moved
	// the game on, so the line is stale, and the record answers, as
	// models.ErrKeyStored makes it answer a failure inside the change. The
	// record is looked for only on a failure: a first confirmation costs
	// nothing more.
	if _, recErr := p.store.IdempotencyRecord(c.Request.Context(), uid, key); recErr == nil {
		redirect(c, back)
		return nil
	}
	return p.actionAnswer(c, t, v, n, d, err)
}

// actionAnswer renders the page of an action link, with what its
// confirmation ran into (applyErr; nil for none).
func (p *Pages) actionAnswer(c *gin.Context, t, v, n, d string, applyErr error) error {
	id := gameID(c)
	if id == 0 {
		return errNotFound
	}
	l, ref, err := p.actionLink(c, id, t, v, n, d)
	if err != nil {
		return err
	}
	uid := l.Account.ID
	cv := confirmView{State: "ok", Recipient: l.Account.Username, Token: t, actionRef: ref}
	if a := account(c); a != nil && a.ID == uid {
		cv.Yours = true
	} else if a != nil {
		cv.Other = a.Username
	}
	status := http.StatusOK
	if _, err := p.store.IdempotencyRecord(c.Request.Context(), uid, actionKey(l)); err == nil {
		cv.State = "done"
	} else {
		line, _, err := p.actionLine(c, id, uid, ref)
		var stale *play.StaleVersionError
		switch {
		case errors.As(err, &stale):
			cv.State, cv.Current, status = "stale", stale.Current, http.StatusConflict
		case err != nil:
			st, ev := problemFor(err)
			if st >= 500 || st == http.StatusNotFound {
				return err
			}
			cv.State, cv.Title, cv.Problem, status = "stale", ev.Title, ev.Message, st
		default:
			line.State = cmp.Or(line.State, "ok")
			line.Recipient, line.Yours, line.Other, line.Token, line.actionRef = cv.Recipient, cv.Yours, cv.Other, t, ref
			cv = line
		}
	}
	if applyErr != nil {
		var stale *play.StaleVersionError
		if errors.As(applyErr, &stale) {
			cv.State, cv.Current = "stale", stale.Current
			status = http.StatusConflict
		} else {
			st, ev := problemFor(applyErr)
			if st >= 500 {
				return applyErr
			}
			cv.Problem, status = ev.Title+". "+ev.Message, st
		}
	}
	bv, err := p.board(c, id, uid, boardOptions{spectate: !cv.Yours})
	if err != nil {
		return err
	}
	bv.Confirm = &cv
	bv.Live = ""
	p.render(c, status, "act", view{Data: bv})
	return nil
}
