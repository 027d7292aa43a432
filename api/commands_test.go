package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	playpath "github.com/datamonsters/turns/play"
	"github.com/datamonsters/turns/play/commandtest"
)

// TestCommandBatches runs the command language's table through POST
// /v1/games/{id}/actions with commands, on both databases: each row plays
// exactly the actions the play path resolves for it (read back from the
// action log) or is refused with command_refused at its step, changing
// nothing. Chatter, which a reply skips, is refused here: each element
// must be a command.
func TestCommandBatches(t *testing.T) {
	states := map[string]*engine.State{}
	for _, sc := range commandtest.Positions {
		res, err := engine.RunScenario([]byte(sc))
		if err != nil || res.Failed() {
			t.Fatalf("the table's position: %v %v", err, res)
		}
		states[sc] = res.State
	}
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		for _, tc := range commandtest.Cases {
			// The table's position, in place of the dealt one.
			st := states[tc.Scenario()]
			g := e.positionGame(ana, bob, st)
			id := g.ID
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
			var got []string
			for _, a := range recs {
				if a.Version == g.Version+1 {
					var act engine.Action
					if err := json.Unmarshal([]byte(a.Body), &act); err != nil {
						t.Fatal(err)
					}
					got = append(got, actionJSON(t, act))
				}
			}
			if want := resolved(t, st, tc.Text); !slices.Equal(got, want) {
				t.Errorf("%s: recorded\n  %s\nwant the %d actions of the table (%q)\n  %s", tc.Name,
					strings.Join(got, "\n  "), len(tc.Played), tc.Played, strings.Join(want, "\n  "))
			}
		}
	})
}

// resolved is the actions that text resolves to for seat 0 at st, as
// JSON.
func resolved(t *testing.T, st *engine.State, text string) []string {
	t.Helper()
	rd, err := playpath.ReadCommands(text)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := playpath.Resolve(st, 0, engine.Numbered(engine.Moves(st, 0)), rd)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(plan.Actions))
	for i, a := range plan.Actions {
		out[i] = actionJSON(t, a)
	}
	return out
}

// actionJSON is a as JSON, in one spelling (Postgres's JSONB spells a
// recorded action its own way).
func actionJSON(t *testing.T, a engine.Action) string {
	t.Helper()
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
