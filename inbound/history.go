package inbound

import (
	"context"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
)

// stateAt rebuilds the engine state of game g at version (play's Replay):
// the state an email written at that version numbered its lines from.
func stateAt(ctx context.Context, p *play.Service, g *models.Game, cur *engine.State, version int64) (*engine.State, error) {
	return p.Replay(ctx, g, cur, version)
}
