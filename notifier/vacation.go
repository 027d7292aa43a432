package notifier

import (
	"context"

	"github.com/datamonsters/turns/models"
)

// VacationStarted tells the other players of each of the user's active
// games that the user is away (clocks that wait for them pause; see the
// timeout job), in tx: the transaction that stores the vacation.
func (o *Outbox) VacationStarted(ctx context.Context, tx models.OutboxTx, v models.Vacation) error {
	ids, err := tx.Store.ActiveGamesOf(ctx, v.UserID)
	if err != nil {
		return err
	}
	// Every game's jobs go in with one statement.
	return o.batched(ctx, tx.Tx, func(ctx context.Context) error {
		for _, id := range ids {
			g, err := tx.Store.Game(ctx, id)
			if err != nil {
				return err
			}
			seat := g.SeatOf(v.UserID)
			if seat < 0 {
				continue
			}
			base := gameKey(g.ID).n("vac", v.ID)
			var notes []note
			for _, s := range g.Seats {
				if s.UserID == nil || *s.UserID == v.UserID {
					continue
				}
				d := &VacationNotice{Player: g.Seats[seat].Username, From: v.StartsAt, Until: v.EndsAt}
				notes = append(notes, note{userID: *s.UserID, seat: s.SeatNo, kind: KindVacation, data: d, common: &d.Common,
					key: base.w(string(KindVacation)).n("u", *s.UserID)})
			}
			if err := o.dispatch(ctx, tx, g, nil, notes, StreamArgs{Key: string(base.w("stream"))}); err != nil {
				return err
			}
		}
		return nil
	})
}
