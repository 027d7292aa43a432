package play

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
)

// Table talk: the players' messages of a game, to the whole table or, in
// a game of 3 or 4, to one seat. They are part of the game's record but
// never of its rules: posting one changes no version and involves no
// engine. Who may post: a player seated in a game that has started (in
// play or over). Who may read: the players, each the public messages and
// the private ones from or to their seat; a spectator of a public game
// the public ones, when the game's settings show them (SpectatorMessages).

// MaxMessageRunes is the longest message, in characters.
const MaxMessageRunes = 500

// The limit of the messages of one player in one game (a token bucket,
// models.RateLimit): MessageBurst at once, then one more every
// MessageEvery.
const (
	MessageBurst = 8
	MessageEvery = 15 * time.Second
)

// Say is a message to post: its text as written, and the seat it goes to
// privately (nil: the whole table).
type Say struct {
	Text   string
	ToSeat *int
}

// Said is a message as the doors show it: its author's seat and name, the
// seat and name of its one reader when private (ToSeat nil: the table),
// its text as written and when it was posted.
type Said struct {
	ID     int64
	Seat   int
	From   string
	ToSeat *int
	To     string
	Text   string
	At     time.Time
}

// Talk is the table talk of a game as a reader sees it.
type Talk struct {
	Game     *models.Game
	Seat     int    // the reader's seat; -1 for a spectator
	Messages []Said // oldest first
	Earlier  bool   // messages came before those (LatestMessages)
	// Muted says that the reader muted the game's messages.
	Muted bool
	// CanPost says that the reader may post now; Private, that they may
	// write to one seat (a game of 3 or 4), to one of To.
	CanPost bool
	Private bool
	To      []Seat
}

// Seat is a seat a private message may go to.
type Seat struct {
	Seat int
	Name string
}

// TooManyMessagesError refuses a message past the limit (MessageBurst):
// Retry is when one more may be posted, and State the bucket as it is.
type TooManyMessagesError struct {
	Retry time.Duration
	State models.RateState
}

func (e *TooManyMessagesError) Error() string {
	return fmt.Sprintf("too many messages in this game: wait %d seconds before the next one", e.Seconds())
}

// RefusalKind says that it is refusal.RateLimited.
func (e *TooManyMessagesError) RefusalKind() refusal.Kind { return refusal.RateLimited }

// Seconds is Retry in whole seconds, at least 1.
func (e *TooManyMessagesError) Seconds() int {
	return max(int((e.Retry+time.Second-1)/time.Second), 1)
}

// Refusals of table talk.
var (
	ErrMessagesHidden = forbidden("messages_hidden", "the players' messages of this game are not shown to spectators")
	errNotTalking     = conflict("game_not_started", "messages are written in a game that has started")
)

// checkText refuses a text that is empty, too long or not storable. It
// names the field "text".
func checkText(text string) error {
	switch {
	case !models.Storable(text):
		return &Error{Kind: Invalid, Code: "invalid", Detail: "text: holds a NUL character or bytes that are not UTF-8 text"}
	case strings.TrimFunc(text, unicode.IsSpace) == "":
		return &Error{Kind: Invalid, Code: "invalid", Detail: "text: write something"}
	}
	if n := utf8.RuneCountInString(text); n > MaxMessageRunes {
		return &Error{Kind: Invalid, Code: "message_too_long",
			Detail: fmt.Sprintf("text: at most %d characters; this one has %d", MaxMessageRunes, n)}
	}
	return nil
}

// checkSay refuses what seat may not post in g: a seat that is not the
// user's, a game that has not started, a private message in a game of 2 or
// to a seat no person holds.
func checkSay(g *models.Game, seat int, say Say) error {
	switch {
	case seat < 0:
		return ErrNotPlayer
	case g.Status != models.StatusActive && g.Status != models.StatusOver:
		return errNotTalking
	case say.ToSeat == nil:
		return nil
	case g.Players < 3:
		return invalid("to_seat: a message to one seat is for games of 3 or 4 players; leave it out to write to the table")
	}
	to := *say.ToSeat
	if to < 0 || to >= len(g.Seats) || to == seat || g.Seats[to].UserID == nil {
		return invalid("to_seat: seat %d is not another player's seat of this game", to)
	}
	return nil
}

// rateKey is the key of the message bucket of user uid in game id.
func rateKey(id, uid int64) []byte {
	sum := sha256.Sum256([]byte("table talk " + strconv.FormatInt(uid, 10) + " in " + strconv.FormatInt(id, 10)))
	return sum[:]
}

// Say posts user uid's message in game id: checked (checkText, checkSay),
// limited (MessageBurst, MessageEvery: a refused one is a *TooManyMessagesError and
// changes nothing), stored with what the outbox writes of it and rec's
// idempotency record, in one transaction. The Result names the game and
// the message (Result.Message); it has no state.
func (s *Service) Say(ctx context.Context, id, uid int64, say Say, rec *Record) (*Result, error) {
	if err := checkText(say.Text); err != nil {
		return nil, err
	}
	g, seat, err := s.visible(ctx, id, uid)
	if err != nil {
		return nil, err
	}
	if err := checkSay(g, seat, say); err != nil {
		return nil, err
	}
	rate, err := s.store.TakeRate(ctx, rateKey(id, uid), models.RateLimit{Burst: MessageBurst, Every: MessageEvery}, s.now())
	if err != nil {
		return nil, err
	}
	if rate.Wait > 0 {
		return nil, &TooManyMessagesError{Retry: rate.Wait, State: rate}
	}
	m := &models.Message{GameID: id, UserID: uid, Body: say.Text, ToSeat: say.ToSeat}
	res := &Result{Seat: -1, Rate: rate}
	check := func(g *models.Game) error {
		// The seat as the transaction reads it: a seat changes hands only in
		// the lobby, but the game may have been cancelled meanwhile.
		m.Seat = g.SeatOf(uid)
		res.Game, res.Seat = g, m.Seat
		return checkSay(g, m.Seat, say)
	}
	var after func(tx *models.Store) error
	if rec != nil && rec.Make != nil {
		after = func(tx *models.Store) error {
			res.Message = said(res.Game, m)
			return saveRecord(ctx, tx, rec, res)
		}
	}
	if err := s.store.PostMessage(ctx, m, check, after); err != nil {
		return nil, err
	}
	res.Message = said(res.Game, m)
	return res, nil
}

// SayLine posts a message that user uid wrote as a line of text (the
// rest of an email's "say" line): "to <name> <text>" in a game of 3 or 4,
// where name is a player's, goes to that player's seat only; any other
// text goes to the table. In a game of 3 or 4 a "to <name>" that names no
// other player is refused rather than posted to the table; in a game of
// 2, where the table is the other player, "to <name>" naming them is left
// out and anything else is text.
func (s *Service) SayLine(ctx context.Context, id, uid int64, line string, rec *Record) (*Result, error) {
	g, seat, err := s.visible(ctx, id, uid)
	if err != nil {
		return nil, err
	}
	say := Say{Text: strings.TrimSpace(line)}
	if rest, ok := cutWord(say.Text, "to"); ok {
		name, text, _ := strings.Cut(rest, " ")
		name = strings.TrimRight(name, ":,;")
		to := -1
		for _, st := range g.Seats {
			if st.UserID != nil && st.SeatNo != seat && strings.EqualFold(st.Username, name) {
				to = st.SeatNo
			}
		}
		switch {
		case g.Players >= 3 && to < 0:
			return nil, invalid("say to %s: no other player of this game is named %q; write \"say to <name> <text>\" to write to one player, or \"say <text>\" to the table",
				clip(name), clip(name))
		case g.Players >= 3:
			say = Say{Text: strings.TrimSpace(text), ToSeat: &to}
		case to >= 0:
			say.Text = strings.TrimSpace(text)
		}
	}
	return s.Say(ctx, id, uid, say, rec)
}

// cutWord returns s after its first word when that is word (any case),
// and whether it was.
func cutWord(s, word string) (string, bool) {
	first, rest, _ := strings.Cut(s, " ")
	if !strings.EqualFold(first, word) {
		return s, false
	}
	return strings.TrimSpace(rest), true
}

// said is m as the doors show it, named from g's seats.
func said(g *models.Game, m *models.Message) *Said {
	out := &Said{ID: m.ID, Seat: m.Seat, ToSeat: m.ToSeat, Text: m.Body, At: m.CreatedAt}
	if g != nil {
		out.From = seatName(g, m.Seat)
		if m.ToSeat != nil {
			out.To = seatName(g, *m.ToSeat)
		}
	}
	return out
}

func seatName(g *models.Game, seat int) string {
	if seat >= 0 && seat < len(g.Seats) {
		return g.Seats[seat].Username
	}
	return ""
}

// talkOf is the table talk of g as uid at seat reads it, without its
// messages nor whether they muted them; a spectator of a game that does
// not show them is ErrMessagesHidden.
func talkOf(g *models.Game, seat int) (*Talk, error) {
	t := &Talk{Game: g, Seat: seat, Messages: []Said{}}
	if seat < 0 {
		if !g.SettingsOf().SpectatorMessages {
			return nil, ErrMessagesHidden
		}
		return t, nil
	}
	t.CanPost = checkSay(g, seat, Say{}) == nil
	t.Private = t.CanPost && g.Players >= 3
	if t.Private {
		for _, st := range g.Seats {
			if st.UserID != nil && st.SeatNo != seat {
				t.To = append(t.To, Seat{Seat: st.SeatNo, Name: st.Username})
			}
		}
	}
	return t, nil
}

// talkRead reads the messages of game g for user uid at seat into t:
// some of them (and whether earlier ones are left out) and whether the
// user muted them.
type talkRead func(g *models.Game, uid int64, seat int, t *Talk) error

// Messages returns the table talk of game id as user uid reads it: up to
// limit messages after the one with id after, oldest first. A private
// game the user has no seat in is models.ErrNotFound; a spectator of a
// public game that does not show its messages gets ErrMessagesHidden.
func (s *Service) Messages(ctx context.Context, id, uid, after int64, limit int) (*Talk, error) {
	return s.talk(ctx, id, uid, func(g *models.Game, uid int64, seat int, t *Talk) error {
		ms, err := s.store.Messages(ctx, id, seat, after, limit)
		if err != nil {
			return err
		}
		t.Messages = saidAll(g, ms)
		if seat >= 0 {
			t.Muted, err = s.store.MessagesMuted(ctx, uid, id)
		}
		return err
	})
}

// LatestMessages is Messages for the last limit messages the user may
// read, with Earlier set when more came before them.
func (s *Service) LatestMessages(ctx context.Context, id, uid int64, limit int) (*Talk, error) {
	return s.talk(ctx, id, uid, s.latest(ctx, limit))
}

// LatestMessagesIn is LatestMessages of game g as a read of it (Read,
// Game) gave it, with its seats: for a door that has just read the game,
// it spares reading it again. It costs one statement, or none when the
// same reader read the same talk lately: a read is kept by talkKey, whose
// game version and TalkSeq change with everything it shows (a message, a
// mute, a seat). The Talk returned is shared: the caller reads it only.
func (s *Service) LatestMessagesIn(ctx context.Context, g *models.Game, uid int64, limit int) (*Talk, error) {
	seat := seatOf(g, uid)
	if seat < 0 && !g.Public {
		return nil, models.ErrNotFound
	}
	k := talkKey{game: g.ID, version: g.Version, talk: g.TalkSeq, seat: seat, limit: limit}
	if seat >= 0 {
		k.user = uid // whose mute it shows
	}
	if t, ok := s.talks.Get(k); ok {
		cp := *t
		cp.Game = g
		return &cp, nil
	}
	t, err := s.talkIn(g, uid, seat, s.latest(ctx, limit))
	if err != nil {
		return nil, err
	}
	cp := *t
	cp.Game = nil // kept without the game it was read with
	s.talks.Put(k, &cp)
	return t, nil
}

// maxTalks bounds the talk reads kept: a read holds up to a board's 50
// messages of up to MaxMessageRunes each (100 KB at the most), so the
// cache stays under about 100 MB whatever is written.
const maxTalks = 1024

// talkKey names a reader's read of a game's latest messages: the game at
// a version and TalkSeq, the reader's seat (-1: a spectator, who share
// one read), the user at it, and how many messages were read.
type talkKey struct {
	game, version, talk, user int64
	seat, limit               int
}

// latest reads the last limit messages of a game for a seat, and whether
// the user muted them, with one statement.
func (s *Service) latest(ctx context.Context, limit int) talkRead {
	return func(g *models.Game, uid int64, seat int, t *Talk) error {
		ms, earlier, muted, err := s.store.LatestMessages(ctx, g.ID, uid, seat, limit)
		t.Messages, t.Earlier, t.Muted = saidAll(g, ms), earlier, muted && seat >= 0
		return err
	}
}

// talk is the table talk of game id as user uid reads it, its messages
// as read reads them.
func (s *Service) talk(ctx context.Context, id, uid int64, read talkRead) (*Talk, error) {
	g, seat, err := s.visible(ctx, id, uid)
	if err != nil {
		return nil, err
	}
	return s.talkIn(g, uid, seat, read)
}

// talkIn is talk of game g, read, for user uid at seat.
func (s *Service) talkIn(g *models.Game, uid int64, seat int, read talkRead) (*Talk, error) {
	t, err := talkOf(g, seat)
	if err != nil {
		return nil, err
	}
	if err := read(g, uid, seat, t); err != nil {
		return nil, err
	}
	return t, nil
}

func saidAll(g *models.Game, ms []models.Message) []Said {
	out := make([]Said, len(ms))
	for i := range ms {
		out[i] = *said(g, &ms[i])
	}
	return out
}

// MuteMessages records whether user uid, a player of game id, mutes its
// messages: a muted game notifies them of none, by any channel, and its
// emails show none.
func (s *Service) MuteMessages(ctx context.Context, id, uid int64, muted bool) error {
	_, seat, err := s.visible(ctx, id, uid)
	if err != nil {
		return err
	}
	if seat < 0 {
		return ErrNotPlayer
	}
	return s.store.SetMessagesMuted(ctx, uid, id, muted)
}
