package api_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	playpath "github.com/datamonsters/turns/play"
	"github.com/datamonsters/turns/play/commandtest"
)

// The attacks on a whole turn in one API batch (DESIGN.md §9): POST
// /v1/games/{id}/actions with commands.

// tableGame starts a game of ana and bob and puts it in the command
// table's position (commandtest.Position: Ana's turn, her lines 1 to 6),
// as TestCommandBatches does; it returns the game.
func (e *env) tableGame(ana, bob *player) game {
	e.t.Helper()
	return e.scenarioGame(ana, bob, commandtest.Position)
}

// kept is what a refused batch must leave as it was: the version, the
// action log and the events of game id.
func (e *env) kept(id int64) [3]int64 {
	e.t.Helper()
	ctx := context.Background()
	g, err := e.store.GameNoState(ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	acts, err := e.store.Actions(ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	evs, err := e.store.EventsAfter(ctx, id, 0, 100000)
	if err != nil {
		e.t.Fatal(err)
	}
	return [3]int64{g.Version, int64(len(acts)), int64(len(evs))}
}

// commandProblem is a refusal of a batch of commands.
type commandProblem struct {
	Code    string   `json:"code"`
	Detail  string   `json:"detail"`
	Command string   `json:"command"`
	Step    *int     `json:"step"`
	Index   *int     `json:"index"`
	Moves   []string `json:"moves"`
	Current *int64   `json:"current_version"`
}

// TestAttackBatchCommandsRefused: batches a careless user or an attacker
// sends refuse whole, change nothing (the version, the action log, the
// events), never fail with a 5xx, name the element at fault (index) and
// the command, and tell no card Ana has not seen (her deck's).
func TestAttackBatchCommandsRefused(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.tableGame(ana, bob)
		before := e.kept(g.ID)
		long := strings.TrimSuffix(strings.Repeat("always pass, ", 20), ", ")
		for _, tc := range []struct {
			name     string
			commands []string
			index    int // -1: none
			command  string
		}{
			{"a late command fails", []string{"3", "4", "5", "claim spam filter", "end"}, 3, "claim spam filter"},
			{"a number after the end of the turn", []string{"3", "end", "4"}, 2, "4"},
			{"a move after the end of the turn", []string{"end", "play rapid prototype"}, 1, "play rapid prototype"},
			{"the same card twice", []string{"play frontend", "play rapid", "play frontend"}, 2, "play frontend"},
			{"a line chosen twice", []string{"3", "4", "3"}, 0, "3"},
			{"line 0", []string{"3", "0"}, 0, "3"},
			{"a negative line", []string{"3", "-1"}, 1, "-1"},
			{"a huge number", []string{"3", "99999999999999999999"}, 1, "99999999999999999999"},
			{"a number with a sign", []string{"3", "#4"}, 1, "#4"},
			{"a decimal", []string{"3", "1e3"}, 1, "1e3"},
			{"full-width digits", []string{"3", "４"}, 1, "４"},
			{"Arabic-Indic digits", []string{"٣"}, 0, "٣"},
			{"a line break in an element", []string{"3", "4\n6"}, 1, "4\n6"},
			{"a carriage return in an element", []string{"3\r"}, 0, "3\r"},
			{"a quoted line", []string{"3", "> 4"}, 1, "> 4"},
			{"an attribution", []string{"3", "On Tue, Data Monsters wrote:"}, 1, "On Tue"},
			{"a signature", []string{"3", "-- "}, 1, "--"},
			{"a word that is chatter after its card", []string{"play rapid prototype", "rapid"}, 1, "rapid"},
			{"chatter after the same words", []string{"3, thanks", "thanks"}, 0, "thanks"},
			{"more moves than a batch holds", []string{long, long, long}, 2, "always pass"},
			{"a control", []string{"3", "resign"}, -1, ""},
			{"a message", []string{"3", "say hi"}, -1, ""},
			{"a NUL", []string{"3", "\x00"}, -1, ""},
			{"only separators", []string{",;,", " "}, -1, ""},
		} {
			r := e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: ana.Access,
				Body: map[string]any{"expected_version": g.Version, "commands": tc.commands}})
			var p commandProblem
			r.decode(t, &p)
			switch {
			case r.Status >= 500 || r.Status < 400:
				t.Errorf("%s: %d %s", tc.name, r.Status, r.Body)
			case tc.index >= 0 && (p.Code != "command_refused" || p.Index == nil || *p.Index != tc.index || p.Command != tc.command):
				t.Errorf("%s: %s, want element %d, %q", tc.name, r.Body, tc.index, tc.command)
			}
			for _, hidden := range []string{"Data Lake", "Proof of Concept", "Design System", "data-lake", "proof-of-concept"} {
				if strings.Contains(string(r.Body), hidden) {
					t.Errorf("%s: the refusal tells %q: %s", tc.name, hidden, r.Body)
				}
			}
			if now := e.kept(g.ID); now != before {
				t.Fatalf("%s: the refused batch left version, actions, events %v, was %v", tc.name, now, before)
			}
		}
		// Past the batch's limits, and both actions and commands.
		for _, body := range []map[string]any{
			{"expected_version": g.Version, "commands": slices.Repeat([]string{"always pass"}, playpath.MaxBatch+1)},
			{"expected_version": g.Version, "commands": []string{}},
			{"expected_version": g.Version, "commands": []string{"3"}, "actions": []map[string]any{{"type": "end_turn"}}},
			{"expected_version": g.Version, "commands": []string{strings.Repeat("3 ", 200)}},
		} {
			r := e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: ana.Access, Body: body, NoContract: true})
			if r.Status < 400 || r.Status >= 500 {
				t.Errorf("%v: %d %s", body, r.Status, r.Body)
			}
		}
		// Bob's commands, on Ana's turn: his seat's, refused.
		r := e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: bob.Access,
			Body: map[string]any{"expected_version": g.Version, "commands": []string{"1"}}})
		if r.Status != http.StatusUnprocessableEntity && r.Status != http.StatusConflict {
			t.Errorf("bob's batch on Ana's turn: %d %s", r.Status, r.Body)
		}
		// A stale version: 409, the current version, nothing changed.
		r = e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: ana.Access,
			Body: map[string]any{"expected_version": g.Version - 1, "commands": []string{"3"}}})
		var p commandProblem
		r.decode(t, &p)
		if r.Status != http.StatusConflict || p.Code != "stale_version" || p.Current == nil || *p.Current != g.Version {
			t.Errorf("a stale batch: %d %s", r.Status, r.Body)
		}
		if now := e.kept(g.ID); now != before {
			t.Fatalf("the refused batches left version, actions, events %v, was %v", now, before)
		}
		// The whole turn then plays, once.
		e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: ana.Access,
			Body: map[string]any{"expected_version": g.Version, "commands": []string{"3, 4", "5", "claim landing page", "end"}}})
		if now := e.kept(g.ID); now[0] != before[0]+1 || now[1] != before[1]+5 {
			t.Fatalf("the turn left version, actions, events %v, was %v", now, before)
		}
	})
}

// TestAttackBatchCommandsAtOnce: the same batch sent many times at once
// (a client that retries on a flaky network), with and without an
// Idempotency-Key, and different batches for the same version: exactly
// one is applied, the others are refused as stale (or, with the key, get
// the stored response); the log holds one batch's moves.
func TestAttackBatchCommandsAtOnce(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		turn := []string{"3", "4", "5", "claim landing page", "end"}
		for _, tc := range []struct {
			name    string
			batches [][]string
			key     string
		}{
			{"the same batch", slices.Repeat([][]string{turn}, 6), ""},
			{"the same batch with one key", slices.Repeat([][]string{turn}, 6), "turn-1"},
			// Not "always pass": standing answers alone are set at any
			// version (TestAttackStandingAtAnOlderVersion).
			{"different batches", [][]string{turn, {"2", "end"}, {"4", "6"}, {"1"}, {"3, 4, 5, claim landing, end"}, {"4"}}, ""},
		} {
			g := e.tableGame(ana, bob)
			before := e.kept(g.ID)
			var rs []req
			for _, b := range tc.batches {
				r := req{Method: "POST", Path: actionsPath(g.ID), Token: ana.Access, Body: map[string]any{"expected_version": g.Version, "commands": b}}
				if tc.key != "" {
					r.Header = map[string]string{"Idempotency-Key": tc.key}
				}
				rs = append(rs, r)
			}
			out := e.queuedAtOnce(g.ID, rs...)
			ok := 0
			for i, r := range out {
				switch {
				case r.Status == 200:
					ok++
				case r.Status == 409 && tc.key == "":
				default:
					t.Errorf("%s: request %d: %d %s", tc.name, i, r.Status, r.Body)
				}
			}
			if tc.key == "" && ok != 1 || tc.key != "" && ok != len(out) {
				t.Errorf("%s: %d requests answered 200", tc.name, ok)
			}
			now := e.kept(g.ID)
			recs, err := e.store.Actions(context.Background(), g.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range recs {
				if a.Version > before[0] && (a.Version != before[0]+1 || a.Seat != 0) {
					t.Errorf("%s: an action of version %d, seat %d", tc.name, a.Version, a.Seat)
				}
			}
			if now[0] != before[0]+1 {
				t.Errorf("%s: version %d, want %d", tc.name, now[0], before[0]+1)
			}
		}
	})
}
