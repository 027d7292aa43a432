package api_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// e2eDialect is Postgres when TEST_DATABASE_URL is set (as in CI), else
// SQLite.
func e2eDialect() models.Dialect {
	ds := modelstest.Dialects()
	return ds[len(ds)-1]
}

// playout is what a game played over HTTP showed.
type playout struct {
	game       game
	actions    int
	interrupts int // interrupt prompts answered by a seat other than the active one
	staleOK    int // answers accepted although another seat answered since the version they named
}

// play drives game id to its end through the public API only: every step
// reads the game as the awaited player, asks for the legal actions, lets a
// bot choose from that player's view and submits at the version read. After
// maxActions it has every player vote to end.
func play(t *testing.T, e *env, id int64, players []*player, seed uint64, maxActions int) playout {
	t.Helper()
	bots := make([]bot.Bot, len(players))
	for i := range bots {
		bots[i] = bot.NewGreedy(rand.New(rand.NewPCG(seed, uint64(i))))
	}
	var out playout
	for out.actions < maxActions {
		g := e.getGame(id, players[0])
		if g.Status != "active" {
			break
		}
		aw := awaited(g, players)
		if len(aw) == 0 {
			t.Fatalf("game %d waits for nobody: %+v", id, g.View)
		}
		if len(aw) > 1 {
			out.actions += answerAll(t, e, id, aw, bots, g.Version, &out)
			continue
		}
		p := aw[0]
		mine := e.getGame(id, p)
		seat := *mine.YourSeat
		legal := e.legal(id, p)
		if len(legal) == 0 {
			t.Fatalf("seat %d is awaited but has no legal actions", seat)
		}
		a := bots[seat].Choose(mine.View, legal)
		for _, pr := range mine.Prompts {
			if pr.Seat != seat {
				t.Fatalf("seat %d was shown seat %d's prompt", seat, pr.Seat)
			}
			if pr.Kind == engine.PromptInterrupt && a.Prompt == pr.ID && seat != mine.View.Active {
				out.interrupts++
			}
		}
		var tr turnResult
		e.must(200, req{Method: "POST", Path: actionsPath(id), Token: p.Access,
			Body: map[string]any{"expected_version": mine.Version, "actions": []engine.Action{a}}}).decode(t, &tr)
		if tr.Version != mine.Version+1 || tr.View.Seat != seat {
			t.Fatalf("turn result: version %d after %d, view of seat %d", tr.Version, mine.Version, tr.View.Seat)
		}
		out.actions++
	}
	if g := e.getGame(id, players[0]); g.Status == "active" {
		for _, p := range players {
			e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/vote-end", id), Token: p.Access})
		}
	}
	out.game = e.getGame(id, players[0])
	return out
}

// answerAll has every awaited seat answer its prompt, all naming the
// version read before the first answer: only the first is current, and the
// others must be accepted anyway because they answer their own prompts.
func answerAll(t *testing.T, e *env, id int64, aw []*player, bots []bot.Bot, version int64, out *playout) int {
	t.Helper()
	n := 0
	for _, p := range aw {
		mine := e.getGame(id, p)
		legal := e.legal(id, p)
		if len(legal) == 0 || len(mine.Prompts) == 0 {
			continue
		}
		a := bots[*mine.YourSeat].Choose(mine.View, legal)
		if a.Type != engine.ActAnswer {
			continue
		}
		if mine.Prompts[0].Kind == engine.PromptInterrupt && *mine.YourSeat != mine.View.Active {
			out.interrupts++
		}
		e.must(200, req{Method: "POST", Path: actionsPath(id), Token: p.Access,
			Body: map[string]any{"expected_version": version, "actions": []engine.Action{a}}})
		if mine.Version != version {
			out.staleOK++
		}
		n++
	}
	return n
}

// readLog pages through the event log as p and returns the seqs seen.
func readLog(t *testing.T, e *env, id int64, p *player) []int64 {
	t.Helper()
	var seqs []int64
	after := int64(0)
	for {
		var page struct {
			Events []struct {
				Seq int64 `json:"seq"`
			} `json:"events"`
			NextAfter int64 `json:"next_after"`
		}
		e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d/events?after=%d&limit=100", id, after), Token: p.Access}).decode(t, &page)
		for _, ev := range page.Events {
			seqs = append(seqs, ev.Seq)
		}
		if page.NextAfter == after {
			return seqs
		}
		after = page.NextAfter
	}
}

func TestEndToEndTwoPlayers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, e2eDialect(), testConfig())
	players := []*player{e.register("ana"), e.register("bob")}
	g := e.startGame(map[string]any{"mode": "standard", "policy": "holders"}, players...)
	out := play(t, e, g.ID, players, 1, 3000)
	if out.game.Status != "over" || len(out.game.Winners) == 0 {
		t.Fatalf("after %d actions: status %s, winners %v", out.actions, out.game.Status, out.game.Winners)
	}
	// Each player's log is in order and holds at least their own events.
	for _, p := range players {
		seqs := readLog(t, e, g.ID, p)
		if len(seqs) < out.actions {
			t.Fatalf("%s reads %d events for %d actions", p.Name, len(seqs), out.actions)
		}
		for i := 1; i < len(seqs); i++ {
			if seqs[i] <= seqs[i-1] {
				t.Fatalf("event log out of order at %d", i)
			}
		}
	}
	// A finished game takes no more actions.
	r := e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: players[0].Access,
		Body: map[string]any{"expected_version": out.game.Version, "actions": []map[string]string{{"type": "end_turn"}}}})
	if r.Status != 409 || r.code(t) != "game_not_active" {
		t.Fatalf("action after the end: %d %s", r.Status, r.Body)
	}
	t.Logf("2 players: %d actions, winners %v", out.actions, out.game.Winners)
}

func TestEndToEndThreePlayersWithInterrupt(t *testing.T) {
	t.Parallel()
	e := newEnv(t, e2eDialect(), testConfig())
	players := []*player{e.register("ana"), e.register("bob"), e.register("cyd")}
	// Bots answer interrupt windows at random; play games until one has an
	// interrupt answered by a seat that is not the active player.
	for seed := uint64(1); seed <= 5; seed++ {
		g := e.startGame(map[string]any{"mode": "standard", "policy": "conceal"}, players...)
		out := play(t, e, g.ID, players, seed, 3000)
		if out.game.Status != "over" {
			t.Fatalf("game %d: status %s", g.ID, out.game.Status)
		}
		t.Logf("3 players, seed %d: %d actions, %d interrupt answers (%d at an older version), winners %v",
			seed, out.actions, out.interrupts, out.staleOK, out.game.Winners)
		if out.interrupts > 0 && out.staleOK > 0 {
			return
		}
	}
	t.Fatal("no interrupt window answered by two seats in 5 games")
}
