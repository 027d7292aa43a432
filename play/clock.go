package play

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/models"
)

// errNotDue means a clock or bot job found nothing to do: the deadline has
// not passed, the game moved on, or it no longer waits for the seat.
var errNotDue = errors.New("nothing due")

// Timeout submits the engine's timeout action for game id if its deadline
// has passed: open prompts get their default answers, or else the active
// turn ends. It reports whether it applied anything; a game that is not
// due (another server got there first, or a player acted) is left alone.
func (s *Service) Timeout(ctx context.Context, id int64) (bool, error) {
	res, err := s.change(ctx, id, 0, nil, func(g *models.Game, _ int) (*models.Change, *Result, error) {
		if g.Status != models.StatusActive || g.DeadlineAt == nil || g.DeadlineAt.After(s.now()) {
			return nil, nil, errNotDue
		}
		st, err := s.takeState(g)
		if err != nil {
			return nil, nil, err
		}
		return s.play(g, st, engine.System, []engine.Action{{Type: engine.ActTimeout}})
	})
	if errors.Is(err, errNotDue) {
		return false, nil
	}
	res.Done()
	return err == nil, err
}

// PlayBot has the greedy bot play one action for seat of game id, through
// the same path as a player's actions, if the game is still at version and
// waits for the seat. The bot sees only the seat's view and legal actions;
// its choices are seeded by the game and version, so a retry chooses the
// same.
func (s *Service) PlayBot(ctx context.Context, id int64, seat int, version int64) error {
	res, err := s.change(ctx, id, 0, nil, func(g *models.Game, _ int) (*models.Change, *Result, error) {
		if g.Status != models.StatusActive || g.Version != version {
			return nil, nil, errNotDue
		}
		st, err := s.takeState(g)
		if err != nil {
			return nil, nil, err
		}
		var legal []engine.Action
		if slices.Contains(engine.Awaiting(st), seat) {
			legal = engine.Legal(st, seat)
		}
		if len(legal) == 0 {
			s.states.put(g.ID, g.Version, st)
			return nil, nil, errNotDue
		}
		v := st.View(seat)
		a := bot.NewGreedy(rand.New(rand.NewPCG(uint64(id), uint64(version)))).Choose(v, legal)
		s.log.Debug("bot action", "game", id, "seat", seat, "version", version, "action", v.Text(a))
		return s.play(g, st, seat, []engine.Action{a})
	})
	if errors.Is(err, errNotDue) {
		return nil
	}
	res.Done()
	return err
}

// Forfeit resigns seat of game id for its player, after too many
// consecutive timeouts, through the same path as a player's resignation.
// A seat whose run of timeouts is no longer at the game's limit (its
// player came back and acted before the forfeit job ran) is left alone.
func (s *Service) Forfeit(ctx context.Context, id int64, seat int) error {
	res, err := s.change(ctx, id, 0, nil, func(g *models.Game, _ int) (*models.Change, *Result, error) {
		if g.Status != models.StatusActive || seat < 0 || seat >= len(g.Seats) ||
			g.Seats[seat].Timeouts < g.SettingsOf().TimeoutLimit {
			return nil, nil, errNotDue
		}
		st, err := s.takeState(g)
		if err != nil {
			return nil, nil, err
		}
		return s.play(g, st, seat, []engine.Action{{Type: engine.ActResign}})
	})
	var ill *engine.IllegalActionError
	if errors.Is(err, errNotDue) || errors.As(err, &ill) {
		return nil // already resigned, or the game ended meanwhile
	}
	res.Done()
	return err
}

// countTimeouts keeps each seat's run of consecutive timeouts on its seat
// row: a seat that acted (acted is whether the change holds seat's
// actions) starts again from zero, a seat named by a timeout event counts
// one more, and a seat that reaches the game's limit is taken over by the
// bot (its row says so from now on) or is to forfeit, as the game was
// configured. It returns the seats that timed out.
func countTimeouts(g *models.Game, seat int, acted bool, events []engine.Event, set models.GameSettings) []models.SeatTimeouts {
	if acted && seat >= 0 && seat < len(g.Seats) {
		g.Seats[seat].Timeouts = 0
	}
	var out []models.SeatTimeouts
	for _, e := range events {
		if e.Kind != "timeout" {
			continue
		}
		for _, seat := range e.Seats {
			if seat < 0 || seat >= len(g.Seats) {
				continue
			}
			st := &g.Seats[seat]
			st.Timeouts++
			t := models.SeatTimeouts{Seat: seat, Consecutive: st.Timeouts}
			if set.TimeoutLimit > 0 && st.Timeouts == set.TimeoutLimit && st.UserID != nil {
				t.TakeOver = OnTimeoutsBot
				if set.OnTimeouts == OnTimeoutsForfeit {
					t.TakeOver = OnTimeoutsForfeit
				} else if st.Bot == "" {
					st.Bot, st.BotSince = models.BotTakeover, g.Version
				}
			}
			out = append(out, t)
		}
	}
	return out
}

// Reclaim gives user uid back their seat of game id, which the service's
// bot has played since they timed out too often in a row. Their run of
// timeouts starts again from zero; the game's state and deadline stay as
// they are, and the player is told what the bot did meanwhile.
func (s *Service) Reclaim(ctx context.Context, id, uid int64, rec *Record) (*Result, error) {
	return s.change(ctx, id, uid, rec, func(g *models.Game, seat int) (*models.Change, *Result, error) {
		if err := playing(g, seat); err != nil {
			return nil, nil, err
		}
		if g.Seats[seat].Bot != models.BotTakeover {
			return nil, nil, conflict("not_taken_over", "you play your seat yourself: the bot took nothing over")
		}
		st, err := s.takeState(g)
		if err != nil {
			return nil, nil, err
		}
		taken := &g.Seats[seat]
		since := taken.BotSince
		taken.Bot, taken.Timeouts, taken.BotSince = "", 0, 0
		g.Version++
		ch := &models.Change{Reclaimed: []models.Reclaim{{Seat: seat, Since: since}}, Engine: &models.EngineChange{State: st}}
		gid, version := g.ID, g.Version
		return ch, &Result{Game: g, Seat: seat, State: st, keep: func() { s.states.put(gid, version, st) }}, nil
	})
}
