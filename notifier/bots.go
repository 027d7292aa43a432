package notifier

import (
	"context"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/riverqueue/river"
)

// SeatPlayer plays seats for the service, through the same path as a
// player's actions (*play.Service implements it).
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

// scheduleForfeits writes the job that resigns each seat whose run of
// timeouts in this change reached the game's limit with "forfeit" (the
// play path decided it; see models.SeatTimeouts).
func (o *Outbox) scheduleForfeits(ctx context.Context, tx models.OutboxTx, g *models.Game, ch *models.Change) error {
	for _, t := range ch.Timeouts {
		if t.TakeOver != "forfeit" {
			continue
		}
		k := gameKey(g.ID).n("v", g.Version).w("forfeit").n("s", int64(t.Seat))
		if err := o.insert(ctx, tx.Tx, ForfeitArgs{Key: string(k), GameID: g.ID, Seat: t.Seat}, time.Time{}); err != nil {
			return err
		}
	}
	return nil
}

// scheduleBots writes a bot move for every awaited seat the service plays.
func (o *Outbox) scheduleBots(ctx context.Context, tx models.OutboxTx, g *models.Game, st *engine.State) error {
	for _, seat := range engine.Awaiting(st) {
		if seat >= len(g.Seats) || g.Seats[seat].Bot == "" {
			continue
		}
		k := gameKey(g.ID).n("v", g.Version).w("bot").n("s", int64(seat))
		if err := o.insert(ctx, tx.Tx, BotArgs{Key: string(k), GameID: g.ID, Seat: seat, Version: g.Version}, time.Time{}); err != nil {
			return err
		}
	}
	return nil
}

// workBot works a bot job: it plays the bot's move (nothing without a
// SeatPlayer).
func (o *Outbox) workBot(ctx context.Context, job *river.Job[BotArgs]) error {
	if o.cfg.Bots == nil {
		return nil
	}
	return o.cfg.Bots.PlayBot(ctx, job.Args.GameID, job.Args.Seat, job.Args.Version)
}

// workForfeit works a forfeit job: it resigns the seat (nothing without a
// SeatPlayer).
func (o *Outbox) workForfeit(ctx context.Context, job *river.Job[ForfeitArgs]) error {
	if o.cfg.Bots == nil {
		return nil
	}
	return o.cfg.Bots.Forfeit(ctx, job.Args.GameID, job.Args.Seat)
}
