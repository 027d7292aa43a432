package play

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// How many events a read of a game's log gives: the last RecentEvents of
// a game in play (a board's log and news), or the whole log, up to
// AllEvents (a finished game's board, the log page).
const (
	RecentEvents = 40
	AllEvents    = 5000
)

// Events returns the events of game id, decoded, unredacted (redact each
// for its reader with For), oldest first: the whole log with whole, else
// the last RecentEvents up to seq at least (the game's last event as a
// read of it found it, models.Game.EventSeq). The caller must have read
// the game through Read or Game: Events checks no one's right to see it.
//
// The last events of the games read lately are kept (Service.logs, one
// entry per game, a slice never changed once kept: a longer one replaces
// it), and every change this service makes adds its events to its game's
// entry when they follow on from it; so a board read again reads only
// the events recorded since, by another process, if any. Only what a
// board and its news read of an event is kept (see readable).
func (s *Service) Events(ctx context.Context, id, seq int64, whole bool) ([]Event, error) {
	if whole {
		recs, err := s.store.EventsAfter(ctx, id, 0, AllEvents)
		if err != nil {
			return nil, err
		}
		return decodeEvents(nil, recs), nil
	}
	have, _ := s.logs.Get(id)
	if len(have) > 0 && lastSeq(have) >= seq {
		return have, nil
	}
	var recs []models.EventRecord
	var err error
	if len(have) == 0 {
		recs, err = s.store.LatestEvents(ctx, id, RecentEvents)
	} else {
		recs, err = s.store.EventsAfter(ctx, id, lastSeq(have), AllEvents)
	}
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return have, nil
	}
	out := decodeEvents(slices.Clip(have), recs)
	if len(out) > RecentEvents {
		out = out[len(out)-RecentEvents:]
	}
	s.logs.PutUnless(id, out, func(cur, out []Event) bool { return lastSeq(cur) >= lastSeq(out) })
	return out, nil
}

// remember adds the events of a change to the log kept of its game, when
// they follow on from it (see Events). They are copied: the change's
// events share memory with its state.
func (s *Service) remember(id int64, res *Result) {
	if res == nil || res.ch == nil || len(res.events) == 0 {
		return
	}
	have, _ := s.logs.Get(id)
	if len(have) == 0 { // no board read the game lately
		return
	}
	evs := res.Events()
	if lastSeq(have) != evs[0].Seq-1 {
		return
	}
	out := slices.Clip(have)
	for _, e := range evs {
		out = append(out, Event{Seq: e.Seq, Version: e.Version, At: e.At, Event: readable(e.Event)})
	}
	if len(out) > RecentEvents {
		out = out[len(out)-RecentEvents:]
	}
	// Unless another change's events came in meanwhile.
	s.logs.PutUnless(id, out, func(cur, _ []Event) bool { return lastSeq(cur) != lastSeq(have) })
}

// decodeEvents appends the events of recs to out; a body that does not
// decode is left out.
func decodeEvents(out []Event, recs []models.EventRecord) []Event {
	for _, r := range recs {
		var ev engine.Event
		if json.Unmarshal([]byte(r.Body), &ev) == nil {
			out = append(out, Event{Seq: r.Seq, Version: r.Version, At: r.CreatedAt, Event: ev})
		}
	}
	return out
}

// lastSeq is the seq of the last event of l, 0 for none.
func lastSeq(l []Event) int64 {
	if len(l) == 0 {
		return 0
	}
	return l[len(l)-1].Seq
}

// readable is what a board and its news read of e (its kind, text and
// redaction, its cards, seats and counts), in memory of its own.
func readable(e engine.Event) engine.Event {
	out := engine.Event{Kind: e.Kind, Seat: e.Seat, Card: e.Card, Cards: slices.Clone(e.Cards), N: e.N, Target: e.Target,
		On: e.On, Scores: slices.Clone(e.Scores), Seats: slices.Clone(e.Seats), Text: e.Text, Only: slices.Clone(e.Only)}
	if e.Public != nil {
		pub := readable(*e.Public)
		out.Public = &pub
	}
	return out
}
