package api

import (
	"context"
	"errors"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// errNotDue means a game's deadline has not passed (or it has none).
var errNotDue = errors.New("deadline not passed")

// Timeout submits the engine's timeout action for game id if its deadline
// has passed: open prompts get their default answers, or else the active
// turn ends. It reports whether it applied anything; a game that is not
// due (another server got there first, or a player acted) is left alone.
func (s *Server) Timeout(ctx context.Context, id int64) (bool, error) {
	_, err := s.store.Mutate(ctx, id, func(g *models.Game) (*models.Change, error) {
		if g.Status != models.StatusActive || g.DeadlineAt == nil || g.DeadlineAt.After(s.now()) {
			return nil, errNotDue
		}
		st, err := s.takeState(g)
		if err != nil {
			return nil, err
		}
		ch, _, err := s.play(g, st, engine.System, []engine.Action{{Type: engine.ActTimeout}})
		return ch, err
	})
	if errors.Is(err, errNotDue) {
		return false, nil
	}
	return err == nil, err
}
