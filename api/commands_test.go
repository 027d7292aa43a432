package api_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play/commandtest"
)

// TestCommandBatches runs the command language's table through POST
// /v1/games/{id}/actions with commands: each row plays exactly its moves
// (read back from the action log's events in words) or is refused with
// command_refused at its step, changing nothing. Chatter, which a reply
// skips, is refused here: each element must be a command.
func TestCommandBatches(t *testing.T) {
	e := newEnv(t, models.SQLite, testConfig())
	ana, bob := e.register("ana"), e.register("bob")
	res, err := engine.RunScenario([]byte(commandtest.Position))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range commandtest.Cases {
		id := e.startGame(map[string]any{"mode": "fast"}, ana, bob).ID
		// The table's position, in place of the dealt one.
		if _, err := e.store.Mutate(context.Background(), id, func(g *models.Game) (*models.Change, error) {
			data, err := res.State.Marshal()
			g.State, g.Version = data, g.Version+1
			for i := range g.Seats {
				g.Seats[i].Awaited = i == 0
			}
			return &models.Change{}, err
		}); err != nil {
			t.Fatal(err)
		}
		g := e.getGame(id, ana)
		cmds := slices.DeleteFunc(strings.Split(tc.Text, "\n"), func(s string) bool { return strings.TrimSpace(s) == "" })
		if len(cmds) == 0 {
			cmds = []string{tc.Text}
		}
		r := e.do(req{Method: "POST", Path: "/v1/games/" + itoa(id) + "/actions", Token: ana.Access,
			Body: map[string]any{"expected_version": g.Version, "commands": cmds}})
		if tc.Err != "" || len(tc.Skipped) > 0 {
			var p struct {
				Code   string   `json:"code"`
				Detail string   `json:"detail"`
				Step   int      `json:"step"`
				Index  *int     `json:"index"`
				Moves  []string `json:"moves"`
			}
			r.decode(t, &p)
			if r.Status != http.StatusUnprocessableEntity || p.Code != "command_refused" {
				t.Errorf("%s: %v: %d %s", tc.Name, cmds, r.Status, r.Body)
				continue
			}
			if len(tc.Skipped) > 0 {
				if !strings.Contains(p.Detail, "not a command") || p.Index == nil || !strings.Contains(cmds[*p.Index], tc.Skipped[0]) {
					t.Errorf("%s: chatter: %s", tc.Name, r.Body)
				}
			} else if !strings.Contains(p.Detail, tc.Err) || p.Step != tc.Step {
				t.Errorf("%s: %v: %s, want step %d %q", tc.Name, cmds, r.Body, tc.Step, tc.Err)
			}
			if v := e.getGame(id, ana).Version; v != g.Version {
				t.Errorf("%s: a refused batch moved the game from %d to %d", tc.Name, g.Version, v)
			}
			continue
		}
		if r.Status != http.StatusOK {
			t.Errorf("%s: %v: %d %s", tc.Name, cmds, r.Status, r.Body)
			continue
		}
		recs, err := e.store.Actions(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for _, a := range recs {
			if a.Version == g.Version+1 {
				got++
			}
		}
		if got != len(tc.Played) {
			t.Errorf("%s: %d actions recorded, want %d", tc.Name, got, len(tc.Played))
		}
	}
}
