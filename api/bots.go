package api

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/models"
)

// Defaults for the timeout rule of a new game.
const (
	defaultTimeoutLimit = 3     // consecutive timeouts before the seat is taken over
	maxTimeoutLimit     = 20    //
	onTimeoutsBot       = "bot" // the greedy bot plays the seat from then on
	onTimeoutsForfeit   = "forfeit"
)

// checkBots validates and defaults the bot and timeout settings of a new
// game: bot seats are the last seats and leave room for the creator and
// the invited users.
func checkBots(req *createGameRequest) error {
	if req.TimeoutLimit == nil {
		n := defaultTimeoutLimit
		req.TimeoutLimit = &n
	}
	if req.OnTimeouts == "" {
		req.OnTimeouts = onTimeoutsBot
	}
	switch {
	case req.Bots < 0 || req.Bots > req.Players-1-len(req.Invite):
		return invalid("bots: 0 to %d for %d players and %d invited", max(req.Players-1-len(req.Invite), 0), req.Players, len(req.Invite))
	case *req.TimeoutLimit < 0 || *req.TimeoutLimit > maxTimeoutLimit:
		return invalid("timeout_limit: 0 (never) to %d", maxTimeoutLimit)
	case req.OnTimeouts != onTimeoutsBot && req.OnTimeouts != onTimeoutsForfeit:
		return invalid("on_timeouts: bot or forfeit")
	}
	return nil
}

// botSeats returns n bot seats numbered from first, each joined with a
// prebuilt deck. A bot seat has no user.
func botSeats(first, n int, now time.Time) []models.Seat {
	decks := engine.Standard().Decks()
	out := make([]models.Seat, 0, n)
	for i := range n {
		no := first + i
		out = append(out, models.Seat{SeatNo: no, Username: "bot-" + strconv.Itoa(no), Joined: true,
			Deck: deckJSON(decks[no%len(decks)]), JoinedAt: &now, Bot: models.BotFromStart})
	}
	return out
}

// errNotBotsTurn means the game moved on since the bot job was written.
var errNotBotsTurn = errors.New("not the bot's turn")

// PlayBot has the greedy bot play one action for seat of game id, through
// the same path as a player's actions, if the game is still at version and
// waits for the seat. The bot sees only the seat's view and legal actions;
// its choices are seeded by the game and version, so a retry chooses the
// same.
func (s *Server) PlayBot(ctx context.Context, id int64, seat int, version int64) error {
	_, err := s.store.Mutate(ctx, id, func(g *models.Game) (*models.Change, error) {
		if g.Status != models.StatusActive || g.Version != version {
			return nil, errNotBotsTurn
		}
		st, err := s.takeState(g)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(engine.Awaiting(st), seat) {
			return nil, errNotBotsTurn
		}
		legal := engine.Legal(st, seat)
		if len(legal) == 0 {
			return nil, errNotBotsTurn
		}
		v := st.View(seat)
		a := bot.NewGreedy(rand.New(rand.NewPCG(uint64(id), uint64(version)))).Choose(v, legal)
		s.log.Debug("bot action", "game", id, "seat", seat, "version", version, "action", v.Text(a))
		ch, _, err := s.play(g, st, seat, []engine.Action{a})
		return ch, err
	})
	if errors.Is(err, errNotBotsTurn) {
		return nil
	}
	return err
}

// Forfeit resigns seat of game id for its player, after too many
// consecutive timeouts, through the same path as a player's resignation.
func (s *Server) Forfeit(ctx context.Context, id int64, seat int) error {
	_, err := s.store.Mutate(ctx, id, func(g *models.Game) (*models.Change, error) {
		if g.Status != models.StatusActive {
			return nil, errNotBotsTurn
		}
		st, err := s.takeState(g)
		if err != nil {
			return nil, err
		}
		ch, _, err := s.play(g, st, seat, []engine.Action{{Type: engine.ActResign}})
		return ch, err
	})
	if errors.Is(err, errNotBotsTurn) {
		return nil
	}
	var ill *engine.IllegalActionError
	if errors.As(err, &ill) {
		return nil // already resigned, or the game ended meanwhile
	}
	return err
}
