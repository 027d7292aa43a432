package notifier

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// turnEvents is how many of a game's last events a your-turn email reads
// back for its news.
const turnEvents = 200

// turnNews is what changed for seat in game id since it last ended a turn,
// up to version, in the sentences of its board's banner (NewsTold): the
// news of the email that says its turn has come, which follows the
// changes of the others' turns, not only the last one. st is the game's
// state at version. ok is false when the events read do not reach back
// to that end (the email keeps the news of its own change). told are the
// lines of the log the news tells (NewsTold).
func (o *Outbox) turnNews(ctx context.Context, id, version int64, seat int, st *engine.State) (news, told []string, ok bool, err error) {
	recs, err := o.store.LatestEvents(ctx, id, turnEvents)
	if err != nil {
		return nil, nil, false, err
	}
	events, err := decodeUpTo(recs, version)
	if err != nil {
		return nil, nil, false, err
	}
	from := -1 // the index of the seat's last turn_ended
	for i, ev := range events {
		if ev.Kind == engine.KindTurnEnded && ev.Seat == seat {
			from = i
		}
	}
	switch {
	case from >= 0:
		events = events[from+1:]
	case len(recs) == 0 || recs[0].Seq != 1:
		return nil, nil, false, nil // its last turn is further back than the events read
	}
	news, told = NewsTold(st.Table(), seat, events)
	return news, told, true, nil
}

// actedNews is what changed for seat in game id since its own last
// action, up to version: the news, told lines (as turnNews) and the log's
// lines (since) of the email that says its turn goes on. That email
// follows the change that closed another seat's interrupt window; in a
// game of three or four, the seats asked answer in changes of their own,
// and the email tells them all. ok is false when the seat made no action
// before version, or its last is further back than turnEvents events (the
// email keeps what its own change says). The lines that ask the
// questions asked again are left out (engine.Unasked).
func (o *Outbox) actedNews(ctx context.Context, id, version int64, seat int, st *engine.State, asked []engine.Prompt) (news, told, since []string, ok bool, err error) {
	acted, err := o.store.LastActionVersion(ctx, id, seat, version)
	if err != nil || acted == 0 || acted >= version {
		return nil, nil, nil, false, err
	}
	recs, err := o.store.EventsSince(ctx, id, acted, turnEvents)
	if err != nil || len(recs) == turnEvents {
		return nil, nil, nil, false, err
	}
	events, err := decodeUpTo(recs, version)
	if err != nil {
		return nil, nil, nil, false, err
	}
	views := make([]engine.Event, 0, len(events))
	for _, ev := range events {
		if v, ok := ev.For(seat); ok {
			views = append(views, v)
		}
	}
	since = engine.Unasked(views, asked)
	news, told = NewsTold(st.Table(), seat, events)
	return news, told, since, true, nil
}

// withAlso is since, the log's lines, after the lines of was (the email's
// list as its change wrote it) that since does not have: the headlines
// of the change's other notes for the recipient, which the email stands
// for (standingFor), such as another seat's timeout.
func withAlso(was, since []string) []string {
	var also []string
	for _, l := range was {
		if !slices.Contains(since, l) {
			also = append(also, l)
		}
	}
	return append(also, since...)
}

// decodeUpTo decodes the events of recs that changes up to version made.
func decodeUpTo(recs []models.EventRecord, version int64) ([]engine.Event, error) {
	events := make([]engine.Event, 0, len(recs))
	for _, r := range recs {
		if r.Version > version {
			break
		}
		var ev engine.Event
		if err := json.Unmarshal([]byte(r.Body), &ev); err != nil {
			return nil, err
		}
		events = append(events, ev)
	}
	return events, nil
}

// NewsTold is what events did that concerns seat, in the sentences of its
// board's banner (engine.News, on the game's table t), to open an email:
// at most newsMax of them, the last saying how many more the game's log
// has; the game's end is left out, as the email that tells it says it
// first. Told is the lines of the game's log (each event's text as seat
// reads it) that its sentences tell: an email that lists the log as
// well (the Told of YourTurn, PromptWaiting, ReplyAnswer) leaves them out
// (the templates' "since" partial), so that it says each thing once. A
// line whose sentence the cap cut stays in the list.
func NewsTold(t engine.Table, seat int, events []engine.Event) (news, told []string) {
	evs := make([]engine.Event, 0, len(events))
	for _, e := range events {
		if e.Kind != "game_over" {
			evs = append(evs, e)
		}
	}
	all, telling := t.NewsTelling(seat, evs)
	shown := len(all)
	if shown > newsMax {
		shown = newsMax - 1
	}
	for i, e := range evs {
		if telling[i] < 0 || telling[i] >= shown {
			continue
		}
		if v, ok := e.For(seat); ok && v.Text != "" {
			told = append(told, v.Text)
		}
	}
	return capNews(all), told
}

// newsMax is the most sentences of news an email opens with (as many as
// the board's banner shows); the game's log has them all.
const newsMax = 8

// capNews is news cut to newsMax sentences, the last saying how many more
// the game's log has.
func capNews(news []string) []string {
	if len(news) <= newsMax {
		return news
	}
	return append(slices.Clip(news[:newsMax-1]), "And "+strconv.Itoa(len(news)-newsMax+1)+" more: the game's log has them all.")
}
