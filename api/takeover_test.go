package api_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
)

// TestBotTakeoverAndReclaim: a player who times out (limit 1) has their
// seat played by the bot and gets one email that says so and how to take
// the seat back, then no turn, prompt or reminder email while the bot
// plays; reclaiming stops the bot at once, sends one email with what the
// bot did, and the player's turns are theirs (and emailed) again. Another
// player cannot reclaim a seat the bot does not play.
func TestBotTakeoverAndReclaim(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ctx := context.Background()
		ana, bob := e.register("ana"), e.register("bob")
		players := []*player{ana, bob}
		g := e.startGame(map[string]any{"mode": "fast", "turn_deadline_seconds": 3600, "prompt_deadline_seconds": 3600,
			"timeout_limit": 1}, ana, bob)
		victim := awaited(g, players)[0]
		other := ana
		if victim == ana {
			other = bob
		}
		e.drain(t)
		mails := func(kind string, to *player) []sunkMail {
			var out []sunkMail
			for _, m := range e.mail.all() {
				if strings.Contains(m.Header.Get("Message-Id"), "."+kind+".") && m.To[0] == to.Name+"@example.com" {
					out = append(out, m)
				}
			}
			return out
		}
		turnMails := func(p *player) int {
			return len(mails("your_turn", p)) + len(mails("prompt_waiting", p)) + len(mails("deadline_reminder", p))
		}

		// The victim lets the turn time out: the bot takes the seat over.
		e.clock.Add(61 * time.Minute)
		waitFor(t, "the timeout", func() bool {
			e.ob.RunDue(ctx)
			return e.getGame(g.ID, ana).Version > g.Version
		})
		waitFor(t, "the takeover email", func() bool { return len(mails("timeout_applied", victim)) == 1 })
		taken := mails("timeout_applied", victim)[0]
		if !strings.Contains(taken.Body, "a bot now plays your seat") || !strings.Contains(taken.Body, fmt.Sprintf("/games/%d#reclaim", g.ID)) {
			t.Fatalf("the takeover email says:\n%s", taken.Body)
		}
		before := turnMails(victim)

		// The other player plays; the bot plays the victim's turns. Each
		// round the other ends their turn (answering what they must first).
		playTurn := func(p *player) {
			t.Helper()
			for range 20 {
				cur := e.getGame(g.ID, p)
				if cur.Status != "active" || !slices.Contains(awaited(cur, players), p) {
					return
				}
				acts := e.legal(g.ID, p)
				a := answered(acts[0], cur.Prompts)
				if i := slices.IndexFunc(acts, func(a engine.Action) bool { return a.Type == engine.ActEndTurn }); i >= 0 {
					a = acts[i]
				}
				e.must(200, req{Method: "POST", Path: actionsPath(g.ID), Token: p.Access,
					Body: map[string]any{"expected_version": cur.Version, "actions": []any{a}}})
				e.drain(t)
				if a.Type == engine.ActEndTurn {
					return
				}
			}
			t.Fatalf("%s still awaited after 20 actions", p.Name)
		}
		botMoved := false
		for round := 0; round < 2; round++ {
			v := e.getGame(g.ID, other).Version
			playTurn(other)
			e.drain(t)
			cur := e.getGame(g.ID, other)
			if cur.Status != "active" {
				t.Fatal("the game ended before the victim reclaimed the seat")
			}
			if slices.Contains(awaited(cur, players), victim) {
				t.Fatalf("round %d: the bot did not play the victim's seat (awaiting %v)", round, cur.View.Awaiting)
			}
			botMoved = botMoved || cur.Version > v+1
		}
		if !botMoved {
			t.Fatal("the bot never moved")
		}
		if n := turnMails(victim) - before; n != 0 {
			t.Fatalf("%d turn, prompt or reminder emails to %s while the bot played the seat", n, victim.Name)
		}

		// Only the victim may reclaim, once.
		res := e.must(409, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/reclaim", g.ID), Token: other.Access})
		if !strings.Contains(string(res.Body), "not_taken_over") {
			t.Fatalf("another player's reclaim: %s", res.Body)
		}
		// Reclaim while the other player is awaited: the bot must not take
		// the victim's next turn.
		cur := e.getGame(g.ID, victim)
		if !slices.Contains(awaited(cur, players), other) {
			t.Fatalf("want the other player awaited, awaiting %v", cur.View.Awaiting)
		}
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/reclaim", g.ID), Token: victim.Access})
		e.must(409, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/reclaim", g.ID), Token: victim.Access})
		waitFor(t, "the reclaim email", func() bool { return len(mails("seat_reclaimed", victim)) == 1 })
		back := mails("seat_reclaimed", victim)[0]
		if !strings.Contains(back.Body, "What the bot did in your seat meanwhile:") || !strings.Contains(back.Body, "ends their turn") {
			t.Fatalf("the reclaim email says:\n%s", back.Body)
		}

		// From now on the victim is told of their turns and plays them:
		// the bot does not move for them.
		told := func() bool { return turnMails(victim) > before }
		if cur := e.getGame(g.ID, victim); cur.View.Active == *cur.YourSeat {
			told = func() bool { return strings.Contains(back.Body, "It is your turn now.") }
		}
		playTurn(other)
		cur = e.getGame(g.ID, victim)
		if !slices.Contains(awaited(cur, players), victim) {
			t.Fatalf("after reclaiming, the bot played the victim's turn (awaiting %v)", cur.View.Awaiting)
		}
		waitFor(t, "the victim to be told of their turn", told)
		before = turnMails(victim)
		playTurn(victim)
		playTurn(other)
		waitFor(t, "the victim's next turn email", func() bool { return turnMails(victim) > before })
		if n := len(mails("seat_reclaimed", victim)); n != 1 {
			t.Fatalf("%d reclaim emails", n)
		}
	})
}
