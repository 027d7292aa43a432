package notifier

import (
	"context"
	"strconv"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/riverqueue/river"
)

// SeatPlayer plays seats for the service, through the same path as a
// player's actions (the API server implements it).
type SeatPlayer interface {
	// PlayBot has the greedy bot play one action for seat if the game is
	// still at version and waits for the seat.
	PlayBot(ctx context.Context, gameID int64, seat int, version int64) error
	// Forfeit resigns seat for its player.
	Forfeit(ctx context.Context, gameID int64, seat int) error
}

// BotArgs is one bot move: seat plays at version of the game.
type BotArgs struct {
	Key     string `json:"key" river:"unique"`
	GameID  int64  `json:"game_id"`
	Seat    int    `json:"seat"`
	Version int64  `json:"version"`
}

// Kind is the River job kind.
func (BotArgs) Kind() string { return botKind }

// ForfeitArgs resigns a seat after too many consecutive timeouts.
type ForfeitArgs struct {
	Key    string `json:"key" river:"unique"`
	GameID int64  `json:"game_id"`
	Seat   int    `json:"seat"`
}

// Kind is the River job kind.
func (ForfeitArgs) Kind() string { return forfeitKind }

const (
	botKind     = "dm_bot"
	forfeitKind = "dm_forfeit"
)

// countTimeouts keeps each seat's run of consecutive timeouts on its seat
// row (written with the change): a seat that acted starts again from zero,
// a seat named by a timeout event counts one more, and a seat that reaches
// the game's limit is taken over by the bot or forfeits, as the game was
// configured. It returns the counts and the takeovers ("bot" or "forfeit")
// of this change, by seat.
func (o *Outbox) countTimeouts(ctx context.Context, tx models.OutboxTx, g *models.Game, ch *models.Change, events []event,
	set gameSettings) (map[int]int, map[int]string, error) {
	counts, takeover := map[int]int{}, map[int]string{}
	for _, a := range ch.Actions {
		if a.Seat >= 0 && a.Seat < len(g.Seats) {
			g.Seats[a.Seat].Timeouts = 0
		}
	}
	for _, e := range events {
		if e.ev.Kind != "timeout" {
			continue
		}
		for _, seat := range e.ev.Seats {
			if seat < 0 || seat >= len(g.Seats) {
				continue
			}
			s := &g.Seats[seat]
			s.Timeouts++
			counts[seat] = s.Timeouts
			if set.TimeoutLimit <= 0 || s.Timeouts != set.TimeoutLimit || s.UserID == nil {
				continue
			}
			if set.OnTimeouts == "forfeit" {
				takeover[seat] = "forfeit"
				k := "g" + strconv.FormatInt(g.ID, 10) + ".v" + strconv.FormatInt(g.Version, 10) + ".forfeit.s" + strconv.Itoa(seat)
				if err := o.insert(ctx, tx.Tx, ForfeitArgs{Key: k, GameID: g.ID, Seat: seat}, time.Time{}); err != nil {
					return nil, nil, err
				}
				continue
			}
			takeover[seat] = "bot"
			if s.Bot == "" {
				s.Bot = models.BotTakeover
			}
		}
	}
	return counts, takeover, nil
}

// scheduleBots writes a bot move for every awaited seat the service plays.
func (o *Outbox) scheduleBots(ctx context.Context, tx models.OutboxTx, g *models.Game, st *engine.State) error {
	for _, seat := range engine.Awaiting(st) {
		if seat >= len(g.Seats) || g.Seats[seat].Bot == "" {
			continue
		}
		k := "g" + strconv.FormatInt(g.ID, 10) + ".v" + strconv.FormatInt(g.Version, 10) + ".bot.s" + strconv.Itoa(seat)
		if err := o.insert(ctx, tx.Tx, BotArgs{Key: k, GameID: g.ID, Seat: seat, Version: g.Version}, time.Time{}); err != nil {
			return err
		}
	}
	return nil
}

type botWorker struct {
	river.WorkerDefaults[BotArgs]
	o *Outbox
}

// Work plays the bot's move (nothing without a SeatPlayer).
func (w *botWorker) Work(ctx context.Context, job *river.Job[BotArgs]) error {
	if w.o.cfg.Bots == nil {
		return nil
	}
	return w.o.cfg.Bots.PlayBot(ctx, job.Args.GameID, job.Args.Seat, job.Args.Version)
}

type forfeitWorker struct {
	river.WorkerDefaults[ForfeitArgs]
	o *Outbox
}

// Work resigns the seat (nothing without a SeatPlayer).
func (w *forfeitWorker) Work(ctx context.Context, job *river.Job[ForfeitArgs]) error {
	if w.o.cfg.Bots == nil {
		return nil
	}
	return w.o.cfg.Bots.Forfeit(ctx, job.Args.GameID, job.Args.Seat)
}
