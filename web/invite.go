package web

import (
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// Invitations by email and shareable join links. Both are signed links
// (notifier.Link) that let their bearer take an open seat of a game, a
// private one too (play.Service.JoinInvited):
//
//   - an invitation by email names a stored invitation (its id is the
//     link's nonce; models.EmailInvitation) and is bound to the address it
//     was sent to; it takes one seat, once, and its page lets someone with
//     no account register first;
//   - a game's join link is bound to the game alone and works for anyone
//     while a seat is open, until the game is 30 days old; its players
//     share it as they like.
//
// Neither holds a seat: whoever comes first takes it.

// The purposes of the pages' own links, apart from the notifier's (which
// count up from 1): a token made for one never passes for another.
const (
	linkInvite notifier.LinkPurpose = 0x40 + iota // an invitation by email
	linkJoin                                      // a game's shareable join link
)

// Paths and lifetimes of the links.
const (
	invitePath  = "/invite"
	joinPath    = "/join"
	inviteTTL   = 14 * 24 * time.Hour
	joinLinkTTL = 30 * 24 * time.Hour
)

// invitationItem is an invitation by email, as the game's players see it.
type invitationItem struct {
	Email    string
	Accepted bool
}

// openGameOf fills in what a game's page before the start shows beyond
// its seats: for its players the invitations by email and the join link;
// for a signed-in user who has not joined, the decks to join with.
func (p *Pages) openGameOf(c *gin.Context, bv *boardView, uid int64) error {
	if !bv.Open {
		return nil
	}
	if bv.Seated {
		invs, err := p.store.InvitationsOf(c.Request.Context(), bv.ID)
		if err != nil {
			return err
		}
		for _, inv := range invs {
			bv.Invites = append(bv.Invites, invitationItem{Email: inv.Email, Accepted: inv.AcceptedBy != nil})
		}
		if bv.OpenSeats > 0 {
			bv.JoinLink = p.joinURL(bv.ID, bv.CreatedBy, bv.CreatedAt)
		}
	}
	if uid != 0 && !bv.Joined {
		var err error
		bv.Decks, err = p.deckOptions(c, uid)
		return err
	}
	return nil
}

// joinURL is game id's join link.
func (p *Pages) joinURL(id, creator int64, created time.Time) string {
	l := notifier.Link{Purpose: linkJoin, UserID: creator, GameID: id, Expires: created.Add(joinLinkTTL)}
	return p.cfg.BaseURL + joinPath + "?t=" + url.QueryEscape(l.Sign(p.cfg.Secret, []byte(joinPath)))
}

// inviteBound is what an invitation's link is bound to: its address.
func inviteBound(addr string) []byte { return []byte("invite:" + models.NormalEmail(addr)) }

// inviteAddress invites addr to game g in from's name: it stores the
// invitation and mails its link.
func (p *Pages) inviteAddress(c *gin.Context, g *models.Game, from *models.Account, addr string) error {
	ctx := c.Request.Context()
	inv := &models.EmailInvitation{GameID: g.ID, Email: strings.TrimSpace(addr), InvitedBy: from.ID, ExpiresAt: p.now().Add(inviteTTL)}
	if err := p.store.CreateInvitation(ctx, inv); err != nil {
		return err
	}
	nonce := binary.BigEndian.AppendUint64(nil, uint64(inv.ID))
	l := notifier.Link{Purpose: linkInvite, UserID: from.ID, GameID: g.ID, Expires: inv.ExpiresAt, Nonce: nonce}
	link := p.cfg.BaseURL + invitePath + "?t=" + url.QueryEscape(l.Sign(p.cfg.Secret, inviteBound(inv.Email)))
	to := &models.Account{User: models.User{Email: inv.Email, Username: inv.Email}}
	return p.sendMail(context.WithoutCancel(ctx), inviteWords(from.Username, g, inviteTTL), to, link)
}

// inviteWords is the mail of an invitation.
func inviteWords(from string, g *models.Game, valid time.Duration) mailWords {
	return mailWords{Subject: "[Data Monsters] " + from + " invites you to a game",
		Lead: from + " invites you to play Data Monsters, a card game of data and monsters played over days, in Game #" +
			strconv.FormatInt(g.ID, 10) + ": a " + modeWords[g.Mode] + " for " + strconv.Itoa(g.Players) + " players.",
		Button: "Take your seat",
		After: "The link works for " + notifier.HumanDuration(valid) + ", while a seat is open. With no account yet, you create one on the way. " +
			"If you do not know " + from + ", ignore this mail."}
}

// invite mails an invitation to the address of the form, from a player of
// the open game.
func (p *Pages) invite(c *gin.Context) error {
	id := gameID(c)
	if id == 0 {
		return errNotFound
	}
	a := account(c)
	addr := strings.TrimSpace(c.PostForm("email"))
	g, seat, err := p.play.Game(c.Request.Context(), id, a.ID)
	switch {
	case err != nil:
		return err
	case seat < 0:
		return p.boardAgain(c, id, play.ErrNotPlayer)
	case g.Status != models.StatusOpen:
		return p.boardAgain(c, id, play.ErrNotOpen)
	case addr == "" || !accounts.ValidEmail(addr):
		return p.boardAgain(c, id, &pageError{http.StatusUnprocessableEntity, "Not an address", "Enter an email address such as bob@example.com."})
	}
	if err := p.attempt(c, "invite", strconv.FormatInt(a.ID, 10)); err != nil {
		return err
	}
	err = p.inviteAddress(c, g, a, addr)
	switch {
	case errors.Is(err, models.ErrConflict):
		return p.boardAgain(c, id, &pageError{http.StatusConflict, "Invited already", addr + " has an invitation to this game."})
	case err != nil:
		return err
	default:
		redirect(c, gamePath(id)+"?done=invited")
	}
	return nil
}

// inviteView is the page of an invitation or a join link.
type inviteView struct {
	State    string // "ok", "invalid", "expired", "used" (taken by someone else), "closed" (not open any more), "full", "seated"
	Join     bool   // a join link, not an invitation by email
	Token    string
	Email    string // the address invited
	Inviter  string
	Game     gameItem
	Settings []string
	Decks    []deckOption
	Here     string // this page, to come back to after signing in or registering
	Problem  string
	FormKey  string
}

// checkedInvite is a checked link of either kind, with its game and, for
// an invitation by email, the invitation.
type checkedInvite struct {
	view inviteView
	inv  *models.EmailInvitation
	game *models.Game
}

// checkInvite checks the link t of kind (linkInvite or linkJoin) for the
// signed-in user uid (0: none) and reads what its page shows.
func (p *Pages) checkInvite(c *gin.Context, t string, kind notifier.LinkPurpose, uid int64) (checkedInvite, error) {
	ctx := c.Request.Context()
	path := invitePath
	if kind == linkJoin {
		path = joinPath
	}
	out := checkedInvite{view: inviteView{State: "invalid", Join: kind == linkJoin, Token: t, Here: path + "?t=" + url.QueryEscape(t),
		FormKey: newFormKey()}}
	l, err := p.checkLink(c, t, kind, func(*models.Account) ([]byte, error) {
		if kind == linkJoin {
			return []byte(joinPath), nil
		}
		if len(t) == 0 {
			return nil, nil
		}
		l, _ := notifier.ParseLink(t)
		if len(l.Nonce) != 8 {
			return nil, nil
		}
		inv, err := p.store.Invitation(ctx, int64(binary.BigEndian.Uint64(l.Nonce)))
		if errors.Is(err, models.ErrNotFound) {
			return nil, nil // the MAC fails: an invitation of a game that is gone
		}
		if err != nil {
			return nil, err
		}
		out.inv = inv
		return inviteBound(inv.Email), nil
	})
	if err != nil || l.State == linkInvalid {
		return out, err
	}
	if out.inv != nil && out.inv.GameID != l.GameID {
		return out, nil
	}
	g, err := p.store.GameNoState(ctx, l.GameID)
	if errors.Is(err, models.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	if kind == linkJoin && g.CreatedBy != l.UserID {
		return out, nil
	}
	out.game = g
	v := &out.view
	v.Game, v.Settings, v.Inviter = gameOf(g, uid), settingsWords(g), l.Account.Username
	if out.inv != nil {
		v.Email = out.inv.Email
	}
	switch {
	case l.State == linkExpired:
		v.State = "expired"
	case v.Game.Joined:
		v.State = "seated"
	case out.inv != nil && out.inv.AcceptedBy != nil && (uid == 0 || *out.inv.AcceptedBy != uid):
		v.State = "used"
	case g.Status != models.StatusOpen:
		v.State = "closed"
	case v.Game.OpenSeats == 0 && !v.Game.Invited:
		v.State = "full"
	default:
		v.State = "ok"
	}
	if v.State == "ok" && uid != 0 {
		if v.Decks, err = p.deckOptions(c, uid); err != nil {
			return out, err
		}
	}
	return out, nil
}

// invitePage shows an invitation by email: the game, and the form that
// takes its seat (or, signed out, the way to register or sign in first).
func (p *Pages) invitePage(c *gin.Context) error { return p.linkPage(c, linkInvite) }

// joinLinkPage shows a game's join link.
func (p *Pages) joinLinkPage(c *gin.Context) error { return p.linkPage(c, linkJoin) }

func (p *Pages) linkPage(c *gin.Context, kind notifier.LinkPurpose) error {
	ci, err := p.checkInvite(c, c.Query("t"), kind, userOf(c))
	if err != nil {
		return err
	}
	p.render(c, inviteStatus(ci.view.State), "invite", view{Data: ci.view})
	return nil
}

// inviteStatus is the status of an invitation's page in state.
func inviteStatus(state string) int {
	switch state {
	case "ok", "seated":
		return http.StatusOK
	case "invalid":
		return http.StatusBadRequest
	case "expired":
		return http.StatusGone
	}
	return http.StatusConflict
}

// acceptInvitation takes a seat with an invitation by email: once.
func (p *Pages) acceptInvitation(c *gin.Context) error { return p.joinWith(c, linkInvite) }

// joinByLink takes a seat with a game's join link.
func (p *Pages) joinByLink(c *gin.Context) error { return p.joinWith(c, linkJoin) }

// joinWith takes a seat for the signed-in user with the link of kind the
// form names, and the deck it chose.
func (p *Pages) joinWith(c *gin.Context, kind notifier.LinkPurpose) error {
	uid := account(c).ID
	ci, err := p.checkInvite(c, c.PostForm("t"), kind, uid)
	if err != nil {
		return err
	}
	again := func(status int, msg string) {
		ci.view.Problem = msg
		p.render(c, status, "invite", view{Data: ci.view})
	}
	if ci.view.State != "ok" {
		again(inviteStatus(ci.view.State), "")
		return nil
	}
	deck, ok := deckChoice(c.PostForm("deck"))
	if !ok {
		again(http.StatusUnprocessableEntity, "Choose the deck you play with.")
		return nil
	}
	ctx := c.Request.Context()
	if ci.inv != nil {
		if err := p.store.ClaimInvitation(ctx, ci.inv.ID, uid); errors.Is(err, models.ErrConflict) {
			ci.view.State = "used"
			again(http.StatusConflict, "")
			return nil
		} else if err != nil {
			return err
		}
	}
	id := ci.game.ID
	res, err := p.play.JoinInvited(ctx, id, uid, deck, p.formRecord(c, uid, gamePath(id)+"?done=joined"))
	var pe *play.Error
	seated := errors.As(err, &pe) && pe.Code == "already_joined" // with this invitation, from another tab: it stays spent
	repeat := err != nil && p.repeated(c, err)
	if err != nil && ci.inv != nil && !seated && !repeat {
		if rerr := p.store.ReleaseInvitation(context.WithoutCancel(ctx), ci.inv.ID, uid); rerr != nil {
			p.log.Warn("release invitation", "id", ci.inv.ID, "error", rerr)
		}
	}
	if err != nil && !repeat {
		status, ev := problemFor(err)
		if status >= 500 {
			return err
		}
		again(status, ev.Message)
		return nil
	}
	res.Done()
	redirect(c, gamePath(id)+"?done=joined")
	return nil
}
