package api_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/models"
	playpath "github.com/datamonsters/turns/play"
)

// fairness is the fairness part of a game detail.
type fairness = playpath.Fairness

func fairnessOf(t *testing.T, e *env, id int64, p *player) *fairness {
	t.Helper()
	var g struct {
		Fairness *fairness `json:"fairness"`
	}
	e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", id), Token: p.Access}).decode(t, &g)
	return g.Fairness
}

// storedState is the engine state the store holds for game id.
func storedState(t *testing.T, e *env, id int64) *engine.State {
	t.Helper()
	g, err := e.store.Game(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	st, err := engine.Unmarshal(g.State)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// secretForms are the ways a secret could show in a body.
func secretForms(secrets ...engine.Secret) []string {
	var out []string
	for _, s := range secrets {
		list, _ := json.Marshal([32]byte(s))
		out = append(out, s.String(), strings.ToUpper(s.String()), base64.StdEncoding.EncodeToString(s[:]),
			base64.RawURLEncoding.EncodeToString(s[:]), strings.Trim(string(list), "[]"))
	}
	return out
}

// TestSecretInNoResponse plays a game over HTTP, reading every submission's
// response and, after every fourth action, everything each player and a
// spectator may read (game detail, legal actions, the whole event log, game
// lists, the action log): none holds the game's secret or salt in any
// form, and the action log is refused while the game runs. The commitment
// is published from the start and never changes; at the end the detail
// reveals secret and salt, which match it.
func TestSecretInNoResponse(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob, eve := e.register("ana"), e.register("bob"), e.register("eve")
		players := []*player{ana, bob}
		g := e.startGame(map[string]any{"mode": "fast", "policy": "conceal"}, ana, bob)
		st := storedState(t, e, g.ID)
		forms := secretForms(st.Secret, st.Salt)
		published := fairnessOf(t, e, g.ID, ana)
		if published == nil || published.Commitment != st.Commitment() || published.Secret != nil || published.Salt != nil {
			t.Fatalf("fairness at the start: %+v", published)
		}
		scan := func(what string, body []byte) {
			t.Helper()
			for _, f := range forms {
				if strings.Contains(string(body), f) {
					t.Fatalf("%s shows the secret or salt (%s): %.300s", what, f, body)
				}
			}
		}
		readAll := func() {
			for _, p := range []*player{ana, bob, eve} {
				for _, path := range []string{"/v1/games/%d", "/v1/games/%d/events?limit=500", "/v1/games/%d/legal"} {
					path = fmt.Sprintf(path, g.ID)
					r := e.do(req{Method: "GET", Path: path, Token: p.Access})
					if r.Status != 200 && !(p == eve && strings.HasSuffix(path, "/legal")) {
						t.Fatalf("%s %s: %d", p.Name, path, r.Status)
					}
					scan(p.Name+" "+path, r.Body)
				}
				r := e.do(req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d/actions", g.ID), Token: p.Access})
				if r.Status != 409 || r.code(t) != "game_not_over" {
					t.Fatalf("action log while the game runs: %d %s", r.Status, r.Body)
				}
				scan("game list", e.must(200, req{Method: "GET", Path: "/v1/games", Token: p.Access}).Body)
				if f := fairnessOf(t, e, g.ID, p); f == nil || *f != *published {
					t.Fatalf("%s reads the commitment %+v, published %+v", p.Name, f, published)
				}
			}
		}
		bots := []bot.Bot{bot.NewGreedy(rand.New(rand.NewPCG(9, 0))), bot.NewGreedy(rand.New(rand.NewPCG(9, 1)))}
		for n := 0; ; n++ {
			if n == 2000 {
				t.Fatal("the game did not end")
			}
			cur := e.getGame(g.ID, ana)
			if cur.Status != "active" {
				break
			}
			if n%4 == 0 { // every read of every reader, at every fourth version
				readAll()
			}
			p := awaited(cur, players)[0]
			mine := e.getGame(g.ID, p)
			a := bots[*mine.YourSeat].Choose(mine.View, mine.Legal)
			r := e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: p.Access,
				Body: map[string]any{"expected_version": mine.Version, "actions": []engine.Action{a}}})
			scan("a submission's response", r.Body)
		}
		// Over: the detail reveals them, and they match the commitment.
		f := fairnessOf(t, e, g.ID, eve)
		if f == nil || f.Secret == nil || f.Salt == nil || f.Commitment != published.Commitment {
			t.Fatalf("fairness at the end: %+v", f)
		}
		secret, _ := hex.DecodeString(*f.Secret)
		salt, _ := hex.DecodeString(*f.Salt)
		sum := sha256.Sum256(append(salt, secret...))
		if hex.EncodeToString(sum[:]) != published.Commitment || *f.Secret != st.Secret.String() {
			t.Fatal("the revealed secret and salt do not match the commitment")
		}
	})
}

// TestActionLog reads a finished game's log as a spectator: the setup the
// game was dealt from, the revealed secret, every action stored (a timeout
// the service submitted among them), and the final state's hash; the same
// setup and secret with the log's actions give that state. A private
// game's log is not found for others, and an open game's is refused.
func TestActionLog(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob, eve := e.register("ana"), e.register("bob"), e.register("eve")
		players := []*player{ana, bob}
		g := e.startGame(map[string]any{"mode": "fast", "turn_deadline_seconds": 3600, "prompt_deadline_seconds": 3600}, ana, bob)
		// The deadline passes: the service times the first turn out.
		service := playpath.New(e.store, e.clock.Now, slog.New(slog.NewJSONHandler(io.Discard, nil)))
		e.clock.Add(time.Hour + time.Minute)
		if ok, err := service.Timeout(context.Background(), g.ID); !ok || err != nil {
			t.Fatalf("timeout: %v %v", ok, err)
		}
		out := play(t, e, g.ID, players, 4, 3000)
		if out.game.Status != "over" {
			t.Fatalf("status %s", out.game.Status)
		}
		var log playpath.ActionLog
		e.must(200, req{Method: "GET", Path: actionsPath(g.ID), Token: eve.Access}).decode(t, &log)
		final := storedState(t, e, g.ID)
		if log.FinalHash != final.Hash() || !slices.Equal(log.Winners, out.game.Winners) || len(log.Scores) != 2 {
			t.Fatalf("log: hash %s winners %v scores %v; stored %s, winners %v", log.FinalHash, log.Winners, log.Scores, final.Hash(), out.game.Winners)
		}
		stored, err := e.store.Actions(context.Background(), g.ID)
		if err != nil || len(log.Actions) != len(stored) || len(stored) < out.actions {
			t.Fatalf("%d logged actions, %d stored, %d played (%v)", len(log.Actions), len(stored), out.actions, err)
		}
		if log.Actions[0].Seat != engine.System || log.Actions[0].Action.Type != engine.ActTimeout {
			t.Fatalf("the first action logged is %+v, not the timeout", log.Actions[0])
		}
		if log.Fairness == nil || log.Fairness.Secret == nil || *log.Fairness.Secret != final.Secret.String() {
			t.Fatalf("log fairness: %+v", log.Fairness)
		}
		setup := engine.Setup{Mode: engine.Mode(log.Setup.Mode), Secret: final.Secret, Salt: final.Salt}
		for _, s := range log.Setup.Seats {
			setup.Players = append(setup.Players, engine.SeatSetup{Name: s.Name, Deck: s.Deck})
		}
		s, _, err := engine.NewGame(setup)
		if err != nil {
			t.Fatal(err)
		}
		if s, err = engine.Replay(s, log.Entries(), nil); err != nil {
			t.Fatal(err)
		}
		if s.Hash() != log.FinalHash {
			t.Fatal("the setup, secret and actions of the log do not give its final state")
		}

		priv := e.startGame(map[string]any{"mode": "fast", "public": false, "invite": []string{"bob"}}, ana, bob)
		if r := e.do(req{Method: "GET", Path: actionsPath(priv.ID), Token: eve.Access}); r.Status != 404 {
			t.Fatalf("a stranger reads a private game's log: %d", r.Status)
		}
		var open game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{"players": 2, "deck": deck(0)}}).decode(t, &open)
		if r := e.do(req{Method: "GET", Path: actionsPath(open.ID), Token: ana.Access}); r.Status != 409 || r.code(t) != "game_not_over" {
			t.Fatalf("an open game's log: %d %s", r.Status, r.Body)
		}
	})
}

// TestLegacyGameGetsSecret stores a game as it was before secrets (the
// engine's testdata/legacy state, with only a 64-bit seed, its hidden
// piles in the order the seed gave) and plays on over HTTP: the first
// change gives it a secret and reshuffles its Laboratory Decks and
// Challenge Deck, so that they are no longer what the seed predicts; the
// game plays to its end; it publishes no commitment, and its log says so.
func TestLegacyGameGetsSecret(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		players := []*player{ana, bob}
		g := e.startGame(map[string]any{"mode": "standard"}, ana, bob)
		data, err := os.ReadFile("../engine/testdata/legacy/state.json")
		if err != nil {
			t.Fatal(err)
		}
		legacy, err := engine.Unmarshal(data)
		if err != nil || !engine.NeedsSecret(legacy) {
			t.Fatalf("fixture: %v", err)
		}
		if _, err := e.store.Mutate(context.Background(), g.ID, func(row *models.Game) (*models.Change, error) {
			row.State, row.Version = data, row.Version+1
			for i := range row.Seats {
				row.Seats[i].Awaited = slices.Contains(engine.Awaiting(legacy), i)
			}
			return &models.Change{}, nil
		}); err != nil {
			t.Fatal(err)
		}
		if f := fairnessOf(t, e, g.ID, ana); f != nil {
			t.Fatalf("a game stored before secrets publishes %+v", f)
		}
		// The pending prompt is answered as it was shown, ids unchanged.
		cur := e.getGame(g.ID, ana)
		p := awaited(cur, players)[0]
		mine := e.getGame(g.ID, p)
		if len(mine.Prompts) == 0 || len(mine.Legal) == 0 {
			t.Fatalf("the stored game shows no prompt: %+v", mine.Prompts)
		}
		answer := answered(mine.Legal[0], mine.Prompts)
		var tr turnResult
		e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: p.Access,
			Body: map[string]any{"expected_version": mine.Version, "actions": []engine.Action{answer}}}).decode(t, &tr)
		if len(tr.Events) == 0 || tr.Events[0].Event.Kind != "resealed" {
			t.Fatalf("the first change's events: %+v", tr.Events)
		}
		now := storedState(t, e, g.ID)
		predicted := legacy.Clone()
		if _, err := engine.Apply(predicted, *mine.YourSeat, answer); err != nil {
			t.Fatal(err)
		}
		if engine.NeedsSecret(now) || now.Commitment() != "" || now.Secret == legacy.Secret {
			t.Fatal("the stored game has no secret of its own after its first change")
		}
		order := func(pile []engine.Inst) string {
			var b strings.Builder
			for _, c := range pile {
				b.WriteString(c.Card + " ")
			}
			return b.String()
		}
		for i := range now.Players {
			if order(now.Players[i].Deck) == order(predicted.Players[i].Deck) {
				t.Fatalf("seat %d's deck is in the order its seed gave", i)
			}
		}
		if order(now.ChallengeDeck) == order(predicted.ChallengeDeck) {
			t.Fatal("the Challenge Deck is in the order the seed gave")
		}
		out := play(t, e, g.ID, players, 2, 3000)
		if out.game.Status != "over" {
			t.Fatalf("status %s", out.game.Status)
		}
		var log playpath.ActionLog
		e.must(200, req{Method: "GET", Path: actionsPath(g.ID), Token: ana.Access}).decode(t, &log)
		if log.Fairness != nil || fairnessOf(t, e, g.ID, ana) != nil {
			t.Fatal("a game stored before secrets reveals a secret at the end")
		}
	})
}
