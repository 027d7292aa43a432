package modelstest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// Stage sets game id of st to the position doc (the scenario format,
// docs/scenarios.md): its state, the events of its setup (as a change of
// the game would record them, with their notifications), the seats it
// waits for, and a deadline a day after now. It returns the state.
func Stage(t testing.TB, st *models.Store, id int64, doc string, now time.Time) *engine.State {
	t.Helper()
	res, err := engine.RunScenario([]byte(doc))
	if err != nil {
		t.Fatalf("the position: %v", err)
	}
	if res.Failed() {
		t.Fatalf("the position: %v", res.Failures)
	}
	s := res.State
	var events []engine.Event
	for _, e := range res.Events {
		events = append(events, e.Event)
	}
	_, err = st.Mutate(context.Background(), id, func(g *models.Game) (*models.Change, error) {
		data, err := s.Marshal()
		if err != nil {
			return nil, err
		}
		g.State, g.Version = data, g.Version+1
		awaiting := engine.Awaiting(s)
		for i := range g.Seats {
			g.Seats[i].Awaited = slices.Contains(awaiting, g.Seats[i].SeatNo)
		}
		deadline := now.Add(24 * time.Hour)
		g.DeadlineAt = &deadline
		ch := &models.Change{ReplacePrompts: true, Engine: &models.EngineChange{State: s, Events: events}}
		for _, e := range events {
			body, _ := json.Marshal(e)
			ch.Events = append(ch.Events, models.EventRecord{Body: string(body)})
		}
		return ch, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
