package web_test

import (
	"context"
	"net/url"
	"sync"
	"testing"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestAttackLobbyInvitationTwoTabs: carl opens the page of his invitation
// by email in two tabs and takes the seat from both at the same moment
// (each tab its own form). What must hold: carl sits once; the invitation
// is spent, as after one use: another account that gets hold of the link
// is told it was used and takes no seat with it, though a seat is still
// open (an invitation takes one seat, once).
func TestAttackLobbyInvitationTwoTabs(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana, carl, dave := s.client(), s.client(), s.client()
		ana.register("ana", "ana password")
		carl.register("carl", "carl password")
		dave.register("dave", "dave password")
		f := mustForm(t, ana.get("/new-game").Body, "Open the game")
		id := gameIDOf(t, ana.send(f, "players", "3", "mode", "fast", "invite", "carl@example.com", "public", "").mustRedirect(t, "/games/"))
		link := s.waitMail("carl@example.com", "ana invites you to a game").link(t, "/invite")

		tabs := []pageForm{
			mustForm(t, carl.get(link).mustSee(t, 200).Body, "Take the seat"),
			mustForm(t, carl.get(link).mustSee(t, 200).Body, "Take the seat"),
		}
		gate := modelstest.HoldGame(t, s.store, id)
		out := make([]resp, len(tabs))
		var wg sync.WaitGroup
		for i, tab := range tabs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i] = carl.send(tab)
			}()
		}
		gate.Wait(len(tabs))
		gate.Release()
		wg.Wait()
		joined := 0
		for i, r := range out {
			switch {
			case r.Status >= 500:
				t.Fatalf("tab %d: %d\n%s", i, r.Status, clip(r.Body))
			case r.Status == 303:
				joined++
			}
		}
		if joined == 0 {
			t.Fatalf("neither tab seated carl: %d, %d", out[0].Status, out[1].Status)
		}
		g, err := s.store.GameNoState(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if n := seatedCount(g, "carl"); n != 1 {
			t.Fatalf("carl sits %d times: %+v", n, g.Seats)
		}

		// The link is spent for anyone else.
		dave.get(link).mustSee(t, 409, "used already")
		lu, _ := url.Parse(link)
		dave.post("/invite", url.Values{"t": {lu.Query().Get("t")}, "deck": {"prebuilt:running-a-startup"}}).mustSee(t, 409, "used already")
		if g, err = s.store.GameNoState(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		if n := seatedCount(g, "dave"); n != 0 {
			t.Fatalf("dave took a seat with carl's spent invitation: %+v", g.Seats)
		}
	})
}

// seatedCount is how many seats of g user name has joined.
func seatedCount(g *models.Game, name string) int {
	n := 0
	for _, st := range g.Seats {
		if st.Joined && st.Username == name {
			n++
		}
	}
	return n
}
