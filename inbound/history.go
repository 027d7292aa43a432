package inbound

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
)

// stateAt rebuilds the engine state of game g at version from its setup,
// the secret the current state cur holds and its action log: the state an
// email written at that version numbered its lines from. A version before
// the start, after the current one, or a log that does not replay is an
// error.
func stateAt(ctx context.Context, p *play.Service, g *models.Game, cur *engine.State, version int64) (*engine.State, error) {
	if version > g.Version || g.StartedAt == nil {
		return nil, fmt.Errorf("inbound: no state at version %d of game %d", version, g.ID)
	}
	setup, err := p.SetupOf(g)
	if err != nil {
		return nil, err
	}
	setup.Secret, setup.Salt = cur.Secret, cur.Salt
	st, _, err := engine.NewGame(setup)
	if err != nil {
		return nil, err
	}
	recs, err := p.Store().Actions(ctx, g.ID)
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(recs) && recs[i].Version <= version; {
		j, seat := i, recs[i].Seat
		var batch []engine.Action
		for ; j < len(recs) && recs[j].Version == recs[i].Version; j++ {
			var a engine.Action
			if err := json.Unmarshal([]byte(recs[j].Body), &a); err != nil {
				return nil, err
			}
			batch = append(batch, a)
		}
		next, _, _, err := engine.ApplyBatch(st, seat, batch)
		if err != nil {
			return nil, fmt.Errorf("inbound: replay of game %d at version %d: %w", g.ID, recs[i].Version, err)
		}
		st, i = next, j
	}
	return st, nil
}
