package notifier

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// note is one notification to one user, as the transaction that causes
// it names it: the cheap part of what it says (data: the facts of the
// change, the texts of its events, its deadline) and fill, what the
// workers add after the commit from the game's state (nil: data is whole).
type note struct {
	userID int64
	seat   int // the recipient's seat; -1 for none
	kind   Kind
	key    jobKey // see key(); channels add a part
	data   Data
	common *Common // points into data, filled in by dispatch
	fill   *Fill
}

// event is a stored engine event with its sequence number.
type event struct {
	seq int64
	ev  engine.Event
}

// GameChanged writes the jobs for one game change in its transaction. It
// implements models.Outbox: who is told what is decided here, from what
// the change says it did (models.Happened), its events and the new state;
// what each recipient is shown (their board, hand, prompts and numbered
// lines) is built by the workers after the commit. The jobs go in with one
// statement.
func (o *Outbox) GameChanged(ctx context.Context, tx models.OutboxTx, c models.GameChange) error {
	return o.batched(ctx, tx.Tx, func(ctx context.Context) error { return o.gameChanged(ctx, tx, c) })
}

func (o *Outbox) gameChanged(ctx context.Context, tx models.OutboxTx, c models.GameChange) error {
	g, ch := c.Game, c.Change
	if ch == nil {
		ch = &models.Change{}
	}
	if c.Created {
		return o.dispatch(ctx, tx, g, nil, o.invitations(g, ch.Happened.Invited), StreamArgs{Key: streamKey(g.ID, g.Version)})
	}
	if g.State == nil && ch.Engine == nil {
		return nil // a lobby change: nobody is told
	}
	st, events, err := parsedChange(g, ch)
	if err != nil {
		return err
	}
	if err := o.scheduleForfeits(ctx, tx, g, ch); err != nil {
		return err
	}
	notes, err := o.changeNotes(ctx, tx, g, ch, st, events)
	if err != nil {
		return err
	}
	stream := StreamArgs{Key: streamKey(g.ID, g.Version)}
	if len(events) > 0 {
		stream.GameID, stream.FromSeq, stream.ToSeq = g.ID, events[0].seq, events[len(events)-1].seq
		stream.Seats = g.Holders()
	}
	if err := o.dispatch(ctx, tx, g, ch, notes, stream); err != nil {
		return err
	}
	if slices.ContainsFunc(notes, func(n note) bool { return n.fill != nil }) {
		// The workers build those notes from the state this change leaves,
		// which the caller's next change may alter in place: a copy of it,
		// kept once the change has committed.
		id, version := g.ID, g.Version
		ch.AfterCommit = append(ch.AfterCommit, func() { o.recent.put(id, version, st) })
	}
	if g.Status != models.StatusActive {
		return nil
	}
	if err := o.scheduleBots(ctx, tx, g, st); err != nil {
		return err
	}
	if g.DeadlineAt != nil && ch.Happened.Deadline {
		return o.scheduleClock(ctx, tx, g)
	}
	return nil
}

// invitations are the notes of a new game to the users invited to the
// seats its creation names.
func (o *Outbox) invitations(g *models.Game, seats []int) []note {
	inviter := seatName(g, 0)
	var players []string
	joined, invited, open := []string{}, []string{}, 0
	for _, s := range g.Seats {
		switch {
		case s.UserID != nil && s.Joined || s.Bot != "":
			joined = append(joined, s.Username)
		case s.UserID != nil:
			invited = append(invited, s.Username)
		default:
			open++
		}
		if s.UserID != nil {
			players = append(players, s.Username)
		}
	}
	set := g.SettingsOf()
	var notes []note
	for _, seat := range seats {
		if seat < 0 || seat >= len(g.Seats) || g.Seats[seat].UserID == nil {
			continue
		}
		d := &Invitation{Inviter: inviter, Players: players, Joined: joined, Invited: invited, Open: open, Seats: g.Players,
			Mode: modeName(g), TurnDeadline: set.Turn(), PromptDeadline: set.Prompt()}
		notes = append(notes, note{userID: *g.Seats[seat].UserID, seat: seat, kind: KindInvitation, data: d, common: &d.Common})
	}
	return notes
}

// changeNotes decides who a change of the engine state tells what: the
// start, the end, a turn that starts, a seat the game waits for again,
// prompts the change opened, queued actions resumed or dropped, timeouts
// and seats taken back from the bot. It reads no view: what a note shows
// of the state is left to its fill.
func (o *Outbox) changeNotes(ctx context.Context, tx models.OutboxTx, g *models.Game, ch *models.Change, st *engine.State,
	events []event) ([]note, error) {
	h := ch.Happened
	set := g.SettingsOf()
	counts, takeover := map[int]int{}, map[int]string{}
	for _, t := range ch.Timeouts {
		counts[t.Seat], takeover[t.Seat] = t.Consecutive, t.TakeOver
	}
	deadline := time.Time{}
	if g.DeadlineAt != nil {
		deadline = *g.DeadlineAt
	}
	table := st.Table()
	evs := make([]engine.Event, len(events))
	for i, e := range events {
		evs[i] = e.ev
	}
	var notes []note
	for _, s := range g.Seats {
		if s.UserID == nil {
			continue
		}
		uid, seat := *s.UserID, s.SeatNo
		fill := &Fill{GameID: g.ID, Version: g.Version, Seat: seat}
		news, told := NewsTold(table, seat, evs)
		if h.Started {
			d := &GameStarted{Players: seatNames(g), FirstPlayer: seatName(g, st.Active), YourTurn: st.Active == seat && !h.Over}
			n := note{userID: uid, seat: seat, kind: KindGameStarted, data: d, common: &d.Common}
			if d.YourTurn {
				d.Deadline, n.fill = deadline, fill
			}
			notes = append(notes, n)
		}
		var queued *QueuedActions // what became of the seat's queued actions: one note for all
		for _, e := range events {
			ev, ok := e.ev.For(seat)
			if !ok {
				continue
			}
			switch ev.Kind {
			case "queue_resumed", "queue_dropped":
				if ev.Seat != seat {
					continue
				}
				if queued == nil {
					queued = &QueuedActions{Actions: []string{}, News: news, Turn: turnAt(st, events, e.seq)}
					notes = append(notes, note{userID: uid, seat: seat, kind: KindQueuedActions, data: queued, common: &queued.Common})
				}
				if ev.Kind == "queue_dropped" {
					queued.Dropped, queued.Reason = true, ev.Text
				} else {
					queued.Actions = append(queued.Actions, ev.Text)
				}
			case "timeout":
				d := &TimeoutApplied{Player: namesOf(g, ev.Seats), You: slices.Contains(ev.Seats, seat),
					Prompt: strings.Contains(ev.Text, "default answers"), Applied: textsAfter(events, e.seq, seat), Limit: set.TimeoutLimit}
				who := ev.Seats[0]
				if d.You {
					who = seat
				}
				d.Consecutive, d.TakeOver = counts[who], takeover[who]
				if d.You && d.TakeOver == "bot" {
					d.ReclaimURL = o.reclaimURL(g)
				}
				notes = append(notes, note{userID: uid, seat: seat, kind: KindTimeoutApplied, data: d, common: &d.Common,
					key: key(g.ID, g.Version, KindTimeoutApplied, uid).n("e", e.seq)})
			}
		}
		if h.Over {
			d := &GameOver{Reason: endReason(events), Replay: o.replayCommand(g), News: news}
			notes = append(notes, note{userID: uid, seat: seat, kind: KindGameOver, data: d, common: &d.Common, fill: fill})
			continue
		}
		if st.Over() {
			continue
		}
		if i := slices.IndexFunc(ch.Reclaimed, func(r models.Reclaim) bool { return r.Seat == seat }); i >= 0 {
			n, err := o.reclaimed(ctx, tx, g, st, ch.Reclaimed[i], uid, deadline)
			if err != nil {
				return nil, err
			}
			n.fill = fill
			notes = append(notes, n)
			continue
		}
		if s.Bot != "" {
			continue // the service plays the seat: it is not the player's turn to take
		}
		var fresh []string
		var asked []engine.Prompt
		for _, p := range st.Prompts {
			if p.Seat == seat && slices.Contains(h.Opened, p.ID) {
				fresh, asked = append(fresh, p.ID), append(asked, p)
			}
		}
		turnStarted := slices.ContainsFunc(events, func(e event) bool { return e.ev.Kind == "turn_started" && e.ev.Seat == seat })
		switch {
		case turnStarted && st.Active == seat && !h.Started:
			d := &YourTurn{Turn: st.Turn, Since: sinceAsked(events, seat, asked), News: news, Told: told, Deadline: deadline}
			notes = append(notes, note{userID: uid, seat: seat, kind: KindYourTurn, data: d, common: &d.Common, fill: fill})
		case len(fresh) == 0 && st.Active == seat && !h.Started && slices.Contains(h.Awaited, seat):
			// The game waits for the seat again, its turn going on (an
			// interrupt window of another seat closed): without this email a
			// player who plays by email would not know.
			d := &YourTurn{Turn: st.Turn, Since: eventTexts(events, seat), News: news, Told: told, Deadline: deadline}
			f := *fill
			f.NoPrompts = true
			notes = append(notes, note{userID: uid, seat: seat, kind: KindYourTurn, data: d, common: &d.Common, fill: &f})
		case len(fresh) > 0:
			d := &PromptWaiting{TurnOf: seatName(g, st.Active), InYourTurn: st.Active == seat, Turn: st.Turn, Since: sinceAsked(events, seat, asked), News: news, Told: told, Deadline: deadline}
			f := *fill
			f.Prompts = fresh
			notes = append(notes, note{userID: uid, seat: seat, kind: KindPromptWaiting, data: d, common: &d.Common, fill: &f})
		}
	}
	return notes, nil
}

// turnAt is the turn of the game st, the state a change of events
// leaves, at its event seq: a turn the change started after it is not
// yet.
func turnAt(st *engine.State, events []event, seq int64) int {
	turn := st.Turn
	for _, e := range events {
		if e.seq > seq && e.ev.Kind == "turn_started" {
			turn--
		}
	}
	return turn
}

// parsedChange returns the change's new engine state and its events with
// their sequence numbers: as the caller passed them, or else decoded from
// the snapshot and the event bodies.
func parsedChange(g *models.Game, ch *models.Change) (*engine.State, []event, error) {
	events := make([]event, len(ch.Events))
	if e := ch.Engine; e != nil {
		for i, r := range ch.Events {
			events[i] = event{seq: r.Seq, ev: e.Events[i]}
		}
		return e.State, events, nil
	}
	st, err := engine.Unmarshal(g.State)
	if err != nil {
		return nil, nil, err
	}
	for i, r := range ch.Events {
		events[i].seq = r.Seq
		if err := json.Unmarshal([]byte(r.Body), &events[i].ev); err != nil {
			return nil, nil, err
		}
	}
	return st, events, nil
}

// endReason is how the game ended, as its game_over event says.
func endReason(events []event) string {
	reason := ""
	for _, e := range events {
		if e.ev.Kind == "game_over" {
			reason = EndReason(e.ev)
		}
	}
	return reason
}

// EndReason is how a game ended, as its game_over event e says it ("the
// last challenge was won"), for the game-over email's first line.
func EndReason(e engine.Event) string { return cmp.Or(engine.EndReason(e), e.Text) }

// replayCommand is the command that checks a finished game g: it replays
// the game's public log from its revealed secret (docs/fairness.md).
func (o *Outbox) replayCommand(g *models.Game) string {
	return ReplayCommand(o.cfg.Email.BaseURL, g.ID)
}

// ReplayCommand is the command that checks finished game id of the
// service at baseURL: it replays the game's public log from its revealed
// secret (docs/fairness.md).
func ReplayCommand(baseURL string, id int64) string {
	return "datamonsters replay --url " + strings.TrimRight(baseURL, "/") + " " + strconv.FormatInt(id, 10)
}

// reclaimURL is where a player takes back their seat from the bot: the
// game's page, which offers it.
func (o *Outbox) reclaimURL(g *models.Game) string {
	return GameURL(strings.TrimRight(o.cfg.Email.BaseURL, "/"), g.ID) + "#reclaim"
}

// maxBotDigest is the most events a seat-reclaimed mail reads back.
const maxBotDigest = 1000

// reclaimed is the note to a player who took their seat back from the bot:
// what the bot did in their seat since it took over, redacted for them,
// and (its fill) what the game waits for from them now.
func (o *Outbox) reclaimed(ctx context.Context, tx models.OutboxTx, g *models.Game, st *engine.State,
	r models.Reclaim, uid int64, deadline time.Time) (note, error) {
	recs, err := tx.Store.EventsSince(ctx, g.ID, r.Since, maxBotDigest)
	if err != nil {
		return note{}, err
	}
	d := &SeatReclaimed{Turn: st.Turn, YourTurn: st.Active == r.Seat}
	if d.YourTurn || len(engine.PromptsFor(st, r.Seat)) > 0 {
		d.Deadline = deadline
	}
	for _, rec := range recs {
		var ev engine.Event
		if err := json.Unmarshal([]byte(rec.Body), &ev); err != nil {
			return note{}, err
		}
		if v, ok := ev.For(r.Seat); ok && ev.Seat == r.Seat && v.Text != "" {
			d.BotDid = append(d.BotDid, v.Text)
		}
	}
	return note{userID: uid, seat: r.Seat, kind: KindSeatReclaimed, data: d, common: &d.Common}, nil
}

// streamKey is the key of the live-stream job of a game's change.
func streamKey(gameID, version int64) string {
	return string(gameKey(gameID).n("v", version).w("stream"))
}

// dispatch fills in each note's common fields and writes, per note, the
// user's notification log entry, the email job, and the job of each of the
// user's webhooks that wants it, honouring the user's preferences; then
// one live-stream job for the change: stream (its key, and the change's
// events if any) with the log entries added. Each entry and job holds
// what the note says and its fill, which the workers (and the first
// reader of the entry) complete after the commit. ch is the game change
// (nil for notes of no change), whose write stores the entries.
func (o *Outbox) dispatch(ctx context.Context, tx models.OutboxTx, g *models.Game, ch *models.Change, notes []note, stream StreamArgs) error {
	// Listening on Postgres, a game change's own write announces what it
	// stores (models.Change.Notifications).
	inWrite := ch != nil && o.cfg.DatabaseURL != ""
	if len(notes) == 0 {
		if inWrite {
			return nil
		}
		return o.stream(ctx, tx.Tx, stream)
	}
	var ids []int64
	for _, n := range notes {
		if !slices.Contains(ids, n.userID) {
			ids = append(ids, n.userID)
		}
	}
	rcpt, err := tx.Store.RecipientsOf(ctx, g, ids)
	if err != nil {
		return err
	}
	users, hooks := rcpt.Users, rcpt.Webhooks
	chosen, digest := map[string]bool{}, map[int64]models.Preference{}
	for _, p := range rcpt.Preferences {
		if p.Enabled && p.Kind == string(KindDigest) && p.Channel == ChannelEmail {
			digest[p.UserID] = p
		}
		chosen[fmt.Sprintf("%d/%s/%s", p.UserID, p.Kind, p.Channel)] = p.Enabled
	}
	wants := func(uid int64, kind Kind, channel string) bool {
		if on, ok := chosen[fmt.Sprintf("%d/%s/%s", uid, kind, channel)]; ok {
			return on
		}
		return DefaultOn(kind, channel)
	}
	base := strings.TrimRight(o.cfg.Email.BaseURL, "/")
	gid := strconv.FormatInt(g.ID, 10)
	// The log entries first, in one statement: their ids go in the jobs.
	type entry struct {
		note
		user *models.User
		body []byte // the data as JSON
	}
	entries := make([]entry, 0, len(notes))
	recs := make([]models.Notification, 0, len(notes))
	for _, n := range notes {
		u := users[n.userID]
		if u == nil {
			continue
		}
		if n.key == "" {
			n.key = key(g.ID, g.Version, n.kind, n.userID)
		}
		c := n.common
		c.Recipient = cmp.Or(u.DisplayName, u.Username)
		c.GameID, c.GameTitle, c.GameURL, c.Host = gid, "Game #"+gid, GameURL(base, g.ID), hostName(g)
		c.SettingsURL = PreferencesURL(base)
		if o.cfg.UnsubscribeSecret != nil {
			c.UnsubscribeURL = UnsubscribeURL(base, UnsubscribeToken(o.cfg.UnsubscribeSecret, strconv.FormatInt(u.ID, 10), string(n.kind)))
		}
		c.Quiet = QuietMoveOf(g, n.seat)
		e := entry{note: n, user: u}
		var public json.RawMessage
		if e.body, public, err = Payload(n.data); err != nil {
			return err
		}
		fill, err := pending(e.body, n.fill)
		if err != nil {
			return err
		}
		entries = append(entries, e)
		recs = append(recs, models.Notification{UserID: u.ID, GameID: &g.ID, Kind: string(n.kind), Body: string(public), Fill: fill})
	}
	// The change's write stores the entries too, so their ids are not
	// needed here (its payload names at most maxChangeNotes of them).
	inWrite = inWrite && len(recs) <= maxChangeNotes
	if inWrite {
		ch.Notifications = append(ch.Notifications, recs...)
	} else if err := tx.Store.AddNotifications(ctx, recs); err != nil {
		return err
	}
	at := o.now()
	var answered []int
	if ch != nil {
		answered = ch.Happened.Answered
	}
	// A note the recipient's digest gathers goes by the digest instead.
	digests := func(n note) bool { _, ok := digest[n.userID]; return ok && digestKinds[n.kind] }
	emailed := oneEmailEach(entryNotes(entries, func(e entry) note { return e.note }), answered,
		func(n note) bool { return !digests(n) })
	pushed := o.planPush(rcpt, entryNotes(entries, func(e entry) note { return e.note }), answered, wants)
	digested := map[int64]bool{} // the users whose digest is scheduled
	for i, n := range entries {
		u := n.user
		if !inWrite {
			stream.Notes = append(stream.Notes, StreamNote{UserID: u.ID, NotificationID: recs[i].ID})
		}
		turnish := n.kind == KindYourTurn || n.kind == KindPromptWaiting || n.kind == KindDeadlineReminder
		mail := u.Email != "" && u.NotifyEmail && (!turnish || u.NotifyTurns) && wants(u.ID, n.kind, ChannelEmail)
		if digests(n.note) && mail && !digested[u.ID] && !slices.Contains(answered, n.seat) {
			// The digest tells them, at once when a deadline of theirs is near.
			urgent := turnish && g.DeadlineAt != nil && g.DeadlineAt.Sub(o.now()) < urgentWithin
			if err := o.scheduleDigest(ctx, tx.Tx, digest[u.ID], urgent); err != nil {
				return err
			}
			digested[u.ID] = true
		}
		if also, ok := emailed[i]; ok && mail {
			body := n.body
			if len(also) > 0 {
				if body, err = json.Marshal(standingFor(n.data, also)); err != nil {
					return err
				}
			}
			args := EmailArgs{Key: string(n.key.w("email")), UserID: u.ID, GameID: g.ID, Name: n.common.Recipient, Email: u.Email,
				NoteKind: n.kind, Data: body, Fill: n.note.fill}
			if err := o.insert(ctx, tx.Tx, args, time.Time{}); err != nil {
				return err
			}
		}
		if err := o.enqueuePush(ctx, tx.Tx, pushed, i, n.note); err != nil {
			return err
		}
		if !wants(u.ID, n.kind, ChannelWebhook) || (turnish && !u.NotifyTurns) {
			continue
		}
		for _, h := range hooks {
			if h.UserID != u.ID || !h.Wants(string(n.kind)) {
				continue
			}
			k := string(n.key.n("wh", h.ID))
			args := WebhookArgs{Key: k, DeliveryID: deliveryID(k), WebhookID: h.ID,
				Note: &WebhookNote{Kind: n.kind, At: at, Data: n.body, Fill: n.note.fill}}
			if err := o.insert(ctx, tx.Tx, args, time.Time{}); err != nil {
				return err
			}
		}
	}
	if inWrite {
		return nil
	}
	return o.stream(ctx, tx.Tx, stream)
}

// entryNotes maps entries to their notes.
func entryNotes[E any](entries []E, n func(E) note) []note {
	out := make([]note, len(entries))
	for i, e := range entries {
		out[i] = n(e)
	}
	return out
}

// emailRank orders the kinds of note one change may make for one person:
// the one first in it is the one that goes by email.
var emailRank = map[Kind]int{KindGameOver: 1, KindPromptWaiting: 2, KindYourTurn: 2, KindGameStarted: 3,
	KindSeatReclaimed: 4, KindTimeoutApplied: 5, KindQueuedActions: 6}

// oneEmailEach picks the notes of one change that go by email, one per
// person: the most pressing of theirs (emailRank) among those that go by
// email of their own (direct: not gathered by a digest), by its index in
// notes, with the headlines of the others it stands for. A seat that the
// change's door answers itself (answered: an email reply's answer, which
// shows what the change did and the board it leaves, and the game's end
// when the change ends it) gets no email from it.
func oneEmailEach(notes []note, answered []int, direct func(note) bool) map[int][]string {
	candidate := func(n note) bool {
		return direct(n) && !slices.Contains(answered, n.seat)
	}
	best := map[int64]int{}
	for i, n := range notes {
		if !candidate(n) {
			continue
		}
		if j, ok := best[n.userID]; !ok || rankOf(n.kind) < rankOf(notes[j].kind) {
			best[n.userID] = i
		}
	}
	out := make(map[int][]string, len(best))
	for _, i := range best {
		out[i] = nil
	}
	for i, n := range notes {
		if j, ok := best[n.userID]; ok && j != i && candidate(n) {
			out[j] = append(out[j], Headline(deref(n.data)))
		}
	}
	return out
}

func rankOf(k Kind) int {
	if r, ok := emailRank[k]; ok {
		return r
	}
	return len(emailRank) + 1
}

// deref is the value a note's data points to (notes hold pointers, so
// that dispatch can fill their common fields).
func deref(d Data) Data {
	switch x := d.(type) {
	case *Invitation:
		return *x
	case *GameStarted:
		return *x
	case *YourTurn:
		return *x
	case *PromptWaiting:
		return *x
	case *QueuedActions:
		return *x
	case *DeadlineReminder:
		return *x
	case *TimeoutApplied:
		return *x
	case *GameOver:
		return *x
	case *VacationNotice:
		return *x
	case *SeatReclaimed:
		return *x
	case *TableTalk:
		return *x
	}
	return d
}

// standingFor is d as the email that stands for other notes of the same
// change says it: with their headlines (also) first among what happened,
// where d has such a list.
func standingFor(d Data, also []string) Data {
	switch x := deref(d).(type) {
	case YourTurn:
		x.Since = append(slices.Clone(also), x.Since...)
		return x
	case PromptWaiting:
		x.Since = append(slices.Clone(also), x.Since...)
		return x
	}
	return d
}

// maxChangeNotes is the most notifications a game change's write stores
// and announces itself (100 fit a NOTIFY payload with room to spare).
const maxChangeNotes = 100

// Hand words the hand of the view's seat with the engine's card texts.
func Hand(v *engine.View) []Card {
	cat := engine.Standard()
	out := make([]Card, 0, len(v.Hand))
	for _, cv := range v.Hand {
		c := Card{Name: cv.Name}
		if k := cat.Card(cv.Card); k != nil {
			lines := strings.Split(engine.CardText(k), "\n")
			if len(lines) > 1 {
				lines = lines[1:] // the first line is the name
			}
			c.Lines = lines
		}
		out = append(out, c)
	}
	return out
}

// Prompts words the prompts ps of st for their seat, due at deadline:
// each question, its answers, what a timeout answers for the seat, and
// whether it is a choice of the seat's own turn (due when the turn ends).
func Prompts(st *engine.State, ps []engine.Prompt, deadline time.Time) []Prompt {
	out := make([]Prompt, 0, len(ps))
	for _, p := range ps {
		q := Prompt{Text: p.Text, Deadline: deadline, OnTimeout: TimeoutWords(p),
			OwnTurn: p.Seat == st.Active && p.Kind != engine.PromptInterrupt}
		for _, opt := range p.Options {
			q.Options = append(q.Options, opt.Text)
		}
		out = append(out, q)
	}
	return out
}

// TimeoutWords says what a timeout answers to p for its seat
// (engine.Prompt.Default), in the words of an answer: "you pass",
// "nothing is chosen", "the first option is chosen: Keep Glitchy", "the
// first 2 options are chosen: Discard Doodle and Glitchy".
func TimeoutWords(p engine.Prompt) string {
	if p.Kind == engine.PromptInterrupt {
		return "you pass"
	}
	ids := p.Default()
	switch len(ids) {
	case 0:
		return "nothing is chosen"
	case 1:
		return "the first option is chosen: " + p.ChoiceText(ids)
	}
	return "the first " + strconv.Itoa(len(ids)) + " options are chosen: " + p.ChoiceText(ids)
}

// eventTexts returns the texts of events as seat may see them.
func eventTexts(events []event, seat int) []string { return sinceAsked(events, seat, nil) }

// sinceAsked is eventTexts for an email that asks seat the questions
// asked (a turn's email may ask one too, as the hand limit does): the
// lines that ask them again are left out (engine.Unasked), as the email
// shows each question once, under "Waiting for your answer".
func sinceAsked(events []event, seat int, asked []engine.Prompt) []string {
	views := make([]engine.Event, 0, len(events))
	for _, e := range events {
		if v, ok := e.ev.For(seat); ok {
			views = append(views, v)
		}
	}
	return engine.Unasked(views, asked)
}

func textsAfter(events []event, seq int64, seat int) []string {
	var rest []event
	for _, e := range events {
		if e.seq > seq {
			rest = append(rest, e)
		}
	}
	return eventTexts(rest, seat)
}

func seatName(g *models.Game, seat int) string {
	if seat >= 0 && seat < len(g.Seats) {
		return g.Seats[seat].Username
	}
	return ""
}

// hostName is the name of g's host, its creator (in seat 0 from its
// creation), as the subject of its emails names them.
func hostName(g *models.Game) string {
	for _, s := range g.Seats {
		if s.UserID != nil && *s.UserID == g.CreatedBy {
			return s.Username
		}
	}
	return seatName(g, 0)
}

func seatNames(g *models.Game) []string {
	out := make([]string, len(g.Seats))
	for i, s := range g.Seats {
		out[i] = s.Username
	}
	return out
}

func namesOf(g *models.Game, seats []int) string {
	var out []string
	for _, s := range seats {
		out = append(out, seatName(g, s))
	}
	return strings.Join(out, ", ")
}

func modeName(g *models.Game) string {
	if g.Office {
		return "office"
	}
	return g.Mode
}
