package web_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/datamonsters/turns/models"
)

// TestLobbyFollowsAndTells: the lobby's state token changes when a seat
// of a game it lists is taken and when that game starts, and an open
// game's page answers its version; a running game shows its deadline, a
// finished one its result for the reader; an invitation can be declined,
// which opens the seat; the tab's title starts with "Your move" when a
// game waits for the reader.
func TestLobbyFollowsAndTells(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana, bob, cy := s.client(), s.client(), s.client()
		ana.register("ana", "ana password")
		bob.register("bob", "bob password")
		cy.register("cyd", "cyd password")
		decks := []int64{s.makeDeck(s.apiLogin("ana", "ana password")), s.makeDeck(s.apiLogin("bob", "bob password"))}
		token := func(c *client) string { return c.get("/lobby/state").mustSee(t, 200).Body }

		// An open game: the token moves with a seat taken and the start.
		f := mustForm(t, ana.get("/new-game").Body, "Open the game")
		id := gameIDOf(t, ana.send(f, "players", "2", "mode", "fast", "deck", "deck:"+itoa(decks[0])).mustRedirect(t, "/games/"))
		open := ana.get(gamePath(id)).mustSee(t, 200, fmt.Sprintf(`data-poll="/games/%d/state"`, id)).Body
		version := ana.get(gamePath(id)+"/state").mustSee(t, 200).Body
		if !strings.Contains(open, `data-token="`+version+`"`) {
			t.Fatalf("the open game's token is not its version %s", version)
		}
		before := token(ana)
		if !strings.Contains(ana.get("/").Body, `data-token="`+before+`"`) {
			t.Fatal("the lobby's token is not the state's")
		}
		join := mustForm(t, bob.get("/").Body, "Join")
		bob.send(join, "deck", "deck:"+itoa(decks[1])).mustRedirect(t, gamePath(id))
		joined := token(ana)
		if joined == before || ana.get(gamePath(id)+"/state").Body == version {
			t.Fatal("a seat taken did not change the lobby's token or the game's version")
		}
		ana.follow303(t, ana.send(mustForm(t, ana.get(gamePath(id)).Body, "Start the game"))).mustSee(t, 200, "In play")
		if token(ana) == joined {
			t.Fatal("the start did not change the lobby's token")
		}
		s.client().get("/lobby/state").mustRedirect(t, "/login")

		// The game waits for someone: their lobby's title says it, and
		// each lobby shows the deadline.
		first, second := ana, bob
		if !strings.Contains(ana.get("/").Body, "Your move") {
			first, second = bob, ana
		}
		first.get("/").mustSee(t, 200, "<title>Your move · Your games", "yours to play by")
		if strings.Contains(second.get("/").Body, "<title>Your move") {
			t.Fatal("the other player's lobby says it is their move")
		}
		second.get("/").mustSee(t, 200, "next deadline")

		// The first player resigns: the other won.
		resign := mustForm(t, first.get(gamePath(id)).Body, "Resign")
		first.send(resign, "confirm", "yes").mustRedirect(t, gamePath(id))
		second.get("/").mustSee(t, 200, "Over: you won, 0 to 0")
		first.get("/").mustSee(t, 200, "won with no Big Data Points; you had 0")

		// An invitation, declined.
		f = mustForm(t, ana.get("/new-game").Body, "Open the game")
		inv := gameIDOf(t, ana.send(f, "players", "2", "mode", "fast", "deck", "deck:"+itoa(decks[0]), "invite", "cyd").mustRedirect(t, "/games/"))
		page := cy.get("/").mustSee(t, 200, "Invitations", fmt.Sprintf("Decline the invitation to Game #%d", inv)).Body
		var decline pageForm
		for _, f := range formsOf(t, page) {
			if f.Action == fmt.Sprintf("/games/%d/decline", inv) {
				decline = f
			}
		}
		cy.send(decline).mustRedirect(t, "/?done=declined")
		cy.get("/?done=declined").mustSee(t, 200, "You declined the invitation")
		if body := cy.get("/").Body; strings.Contains(body, fmt.Sprintf("Game #%d", inv)) && strings.Contains(body, "Decline the invitation") {
			t.Fatal("the declined invitation is still listed")
		}
		g, err := s.store.GameNoState(context.Background(), inv)
		if err != nil || g.Seats[1].UserID != nil || g.Seats[1].Invited {
			t.Fatalf("the declined seat: %+v %v", g.Seats, err)
		}
		cy.post(fmt.Sprintf("/games/%d/decline", inv), url.Values{}).mustSee(t, 403, "You hold no invitation to this game.")
	})
}

// TestRematchByForm: the final board offers a rematch; its form opens a
// game of the same settings with the other player invited, and sent
// again it opens nothing more.
func TestRematchByForm(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	ana, bob := s.client(), s.client()
	ana.register("ana", "ana password")
	bob.register("bob", "bob password")
	decks := []int64{s.makeDeck(s.apiLogin("ana", "ana password")), s.makeDeck(s.apiLogin("bob", "bob password"))}
	id := openGame(t, ana, bob, decks)
	bob.send(mustForm(t, bob.get(gamePath(id)).Body, "Resign"), "confirm", "yes").mustRedirect(t, gamePath(id))
	board := ana.get(gamePath(id)).mustSee(t, 200, "Final scores", "Rank", "Check that the shuffles were fair", "Commitment").Body
	f := mustForm(t, board, "Rematch")
	loc := ana.send(f).mustRedirect(t, "/games/")
	again := gameIDOf(t, loc)
	if again == id {
		t.Fatal("the rematch is the finished game")
	}
	if loc2 := ana.send(f).mustRedirect(t, "/games/"); loc2 != loc {
		t.Fatalf("the rematch sent twice goes to %s, then %s", loc, loc2)
	}
	ana.get(loc).mustSee(t, 200, "Your rematch is open", "Waiting for players", "bob", "invited")
	bob.get("/").mustSee(t, 200, "Invitations", fmt.Sprintf("Game #%d", again))
	games, err := s.store.ListGames(context.Background(), models.GameFilter{UserID: s.apiLogin("ana", "ana password").ID, Limit: 10})
	if err != nil || len(games) != 2 {
		t.Fatalf("ana has %d games (%v), want the finished one and one rematch", len(games), err)
	}
	// Someone who did not play the game cannot ask for its rematch.
	eve := s.client()
	eve.register("eve", "eve password")
	eve.post(gamePath(id)+"/rematch", url.Values{"key": {"x"}}).mustSee(t, 403)
}
