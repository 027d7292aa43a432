package web_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/datamonsters/turns/models"
)

// TestInvitations: a game opened from the new game form with every kind
// of invitation. bob, invited by username, accepts from his lobby; carl,
// who has no account, gets a mail whose link lets him register and take
// the seat of the private game, once (the link then says it was used);
// the game starts with the three of them. Every link of the invitation
// mail opens a page, signed in or not. A game's join link seats whoever
// opens it, in a private game too; a forged one is refused.
func TestInvitations(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana, bob := s.client(), s.client()
		ana.register("ana", "ana password")
		bob.register("bob", "bob password")
		f := mustForm(t, ana.get("/new-game").Body, "Open the game")
		loc := ana.send(f, "players", "3", "mode", "fast", "invite", "bob, carl@example.com", "public", "").mustRedirect(t, "/games/")
		id := gameIDOf(t, loc)
		ana.get(loc).mustSee(t, 200, "Your game is open", "private: by invitation", "carl@example.com: invited", "bob")

		// bob accepts from the lobby.
		lobby := bob.get("/").mustSee(t, 200, "Invitations", "Accept and take the seat")
		bob.send(mustForm(t, lobby.Body, "Accept and take the seat")).mustRedirect(t, gamePath(id)+"?done=joined")

		// carl registers through the mail's link and takes the last seat.
		m := s.waitMail("carl@example.com", "ana invites you to a game")
		if !strings.Contains(m.Text, "Game #"+itoa(id)) {
			t.Fatalf("the invitation does not name the game:\n%s", m.Text)
		}
		link := m.link(t, "/invite")
		for _, l := range m.links() {
			if st, end := follow(t, s.client(), l); st != 200 {
				t.Fatalf("the invitation's link %s ends at %s with %d", l, end, st)
			}
		}
		carl := s.client()
		page := carl.get(link).mustSee(t, 200, "ana invites you to Game #"+itoa(id), "Create an account")
		reg := regexp.MustCompile(`href="(/register\?[^"]+)"`).FindStringSubmatch(page.Body)
		if reg == nil {
			t.Fatalf("no register link:\n%s", clip(page.Body))
		}
		regPage := carl.get(strings.ReplaceAll(reg[1], "&amp;", "&")).mustSee(t, 200, `value="carl@example.com"`)
		next := hiddenValue(t, regPage.Body, "next")
		back := carl.post("/register", url.Values{"username": {"carl"}, "email": {"carl@example.com"}, "password": {"carl password"},
			"time_zone": {"UTC"}, "next": {next}}).mustRedirect(t, "/invite?")
		seat := mustForm(t, carl.get(back).mustSee(t, 200, "Welcome!").Body, "Take the seat as carl")
		carl.send(seat).mustRedirect(t, gamePath(id)+"?done=joined")
		carl.get(gamePath(id)).mustSee(t, 200, "carl (you)", "You have a seat")

		// The link is spent: for anyone else it says so, and seats nobody.
		dave := s.client()
		dave.register("dave", "dave password")
		dave.get(link).mustSee(t, 409, "This invitation was used already")
		lu, _ := url.Parse(link)
		dave.post("/invite", url.Values{"t": {lu.Query().Get("t")}, "deck": {"prebuilt:running-a-startup"}}).mustSee(t, 409, "used already")
		dave.get(gamePath(id)).mustSee(t, 404)

		start := mustForm(t, ana.get(gamePath(id)).Body, "Start the game")
		ana.follow303(t, ana.send(start)).mustSee(t, 200, "In play", "carl", "bob")

		// A private game's join link.
		f = mustForm(t, ana.get("/new-game").Body, "Open the game")
		loc = ana.send(f, "players", "2", "public", "").mustRedirect(t, "/games/")
		id2 := gameIDOf(t, loc)
		join := regexp.MustCompile(`id="join-link" type="text" value="([^"]+)"`).FindStringSubmatch(ana.get(loc).Body)
		if join == nil {
			t.Fatal("the open game shows no join link")
		}
		joinLink := strings.ReplaceAll(join[1], "&#43;", "+")
		dave.get(gamePath(id2)).mustSee(t, 404)
		dave.get(joinLink).mustSee(t, 200, "Join Game #"+itoa(id2))
		forged := strings.Replace(joinLink, "t=", "t=A", 1)
		dave.get(forged).mustSee(t, 400, "This link is not valid")
		dave.send(mustForm(t, dave.get(joinLink).Body, "Take the seat")).mustRedirect(t, gamePath(id2)+"?done=joined")
		dave.get(gamePath(id2)).mustSee(t, 200, "dave (you)")

		// An invitation by email from the open game's page.
		f = mustForm(t, ana.get("/new-game").Body, "Open the game")
		id3 := gameIDOf(t, ana.send(f, "players", "2").mustRedirect(t, "/games/"))
		inv := mustForm(t, ana.get(gamePath(id3)).Body, "Send the invitation")
		ana.send(inv, "email", "erin@example.com").mustRedirect(t, gamePath(id3)+"?done=invited")
		s.waitMail("erin@example.com", "ana invites you")
		ana.send(inv, "email", "ERIN@example.com").mustSee(t, 409, "has an invitation to this game")
		ana.send(inv, "email", "not an address").mustSee(t, 422, "Enter an email address")
	})
}

// TestNewGameSettings: every setting of the new game form reaches the
// play path as chosen, and a form it refuses comes back with the field at
// fault marked and nothing created.
func TestNewGameSettings(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	ana := s.client()
	ana.register("ana", "ana password")
	s.client().register("bob", "bob password")
	deck := s.makeDeck(s.apiLogin("ana", "ana password"))
	f := mustForm(t, ana.get("/new-game").mustSee(t, 200, "Your deck", "Pairs and freezes").Body, "Open the game")
	for _, tc := range []struct {
		set  []string
		says string
	}{
		{[]string{"players", "2", "invite", "bob, carl@example.com"}, "has room for 1 invited player."},
		{[]string{"players", "3", "invite", "nobody"}, "Invite: no user"},
		{[]string{"players", "3", "bots", "3"}, "Bots: 0 to 2"},
		{[]string{"invite", "x@y@z"}, "is not an email address"},
		{[]string{"deck", "deck:999"}, "Deck: you have no deck 999"},
		{[]string{"deck", "something"}, "Choose a deck."},
	} {
		r := ana.send(f, tc.set...)
		r.mustSee(t, 422, tc.says, `aria-invalid="true"`)
	}
	if games, _ := s.store.ListGames(context.Background(), models.GameFilter{UserID: s.account("ana").ID, Limit: 10}); len(games) != 0 {
		t.Fatalf("refused forms created %d games", len(games))
	}
	loc := ana.send(f, "players", "3", "mode", "standard", "office", "on", "deck", "deck:"+itoa(deck), "invite", "bob", "bots", "1",
		"turn_deadline", "3600", "prompt_deadline", "300", "policy", "conceal", "timeout_limit", "5", "on_timeouts", "forfeit",
		"public", "").mustRedirect(t, "/games/")
	g, err := s.store.GameNoState(context.Background(), gameIDOf(t, loc))
	if err != nil {
		t.Fatal(err)
	}
	set := g.SettingsOf()
	if g.Players != 3 || g.Mode != "standard" || !g.Office || g.Policy != "conceal" || g.Public || set.TurnDeadlineSeconds != 3600 ||
		set.PromptDeadlineSeconds != 300 || set.TimeoutLimit != 5 || set.OnTimeouts != "forfeit" {
		t.Fatalf("game %+v, settings %+v", g, set)
	}
	if g.Seats[1].Username != "bob" || !g.Seats[1].Invited || g.Seats[2].Bot == "" || !strings.Contains(*g.Seats[0].Deck, "hiring-freeze") {
		t.Fatalf("seats %+v", g.Seats)
	}
	ana.get(loc).mustSee(t, 200, "office variant", "1 hour per turn", "5 minutes per decision", "forfeits", "bot-2 · bot")
}
