package notifier

import (
	"context"
	"strconv"

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
			base := "g" + strconv.FormatInt(g.ID, 10) + ".vac" + strconv.FormatInt(v.ID, 10)
			var notes []note
			for _, s := range g.Seats {
				if s.UserID == nil || *s.UserID == v.UserID {
					continue
				}
				d := &VacationNotice{Player: g.Seats[seat].Username, From: v.StartsAt, Until: v.EndsAt}
				notes = append(notes, note{userID: *s.UserID, seat: s.SeatNo, kind: KindVacation, data: d, common: &d.Common,
					key: base + "." + string(KindVacation) + ".u" + strconv.FormatInt(*s.UserID, 10)})
			}
			if err := o.dispatch(ctx, tx, g, nil, notes, StreamArgs{Key: base + ".stream"}); err != nil {
				return err
			}
		}
		return nil
	})
}
