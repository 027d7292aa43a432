package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/datamonsters/turns/models"
)

// TestDeleteAccount: deleting an account from the settings asks for the
// password and a tick; then the user resigns their game in play (the
// other player wins it), cancels the open game they created and leaves the
// one they joined, and nothing of the account signs in again: not the
// password, the browser's session, a refresh token nor an API token. The
// row keeps no name or address; the other players are not touched.
func TestDeleteAccount(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		anaWeb, bobWeb := s.client(), s.client()
		anaWeb.register("ana", "ana password")
		bobWeb.register("bob", "bob password")
		ana, bob := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")
		active := s.startGame(ana, bob)
		var tok struct {
			Token string `json:"token"`
		}
		s.apiCall(http.MethodPost, "/v1/tokens", ana.Access, map[string]any{"name": "bot", "scopes": []string{"read", "play"}}, &tok)
		var refresh struct {
			RefreshToken string `json:"refresh_token"`
		}
		s.apiCall(http.MethodPost, "/v1/auth/login", "", map[string]string{"username": "ana", "password": "ana password"}, &refresh)
		mine := gameIDOf(t, anaWeb.send(mustForm(t, anaWeb.get("/new-game").Body, "Open the game"), "players", "3").mustRedirect(t, "/games/"))
		bobs := gameIDOf(t, bobWeb.send(mustForm(t, bobWeb.get("/new-game").Body, "Open the game"), "players", "3").mustRedirect(t, "/games/"))
		anaWeb.send(mustForm(t, anaWeb.get(gamePath(bobs)).Body, "Take a seat")).mustRedirect(t, gamePath(bobs))

		del := mustForm(t, anaWeb.get("/settings").mustSee(t, 200, "Delete your account").Body, "Delete my account")
		anaWeb.send(del, "password", "wrong password", "confirm", "yes").mustSee(t, 401, "That is not your password")
		anaWeb.send(del, "password", "ana password").mustSee(t, 422, "Tick the box")
		if !anaWeb.signedIn() {
			t.Fatal("a refused deletion signed ana out")
		}
		anaWeb.send(del, "password", "ana password", "confirm", "yes").mustRedirect(t, "/?done=deleted")

		if anaWeb.signedIn() {
			t.Fatal("the deleted account's session goes on")
		}
		anaWeb.post("/login", url.Values{"username": {"ana"}, "password": {"ana password"}}).mustSee(t, 401)
		for _, bearer := range []string{tok.Token, ana.Access} {
			if code := apiStatus(t, s, bearer); code != http.StatusUnauthorized {
				t.Fatalf("GET /v1/me with a token of the deleted account: %d", code)
			}
		}
		body, _ := json.Marshal(map[string]string{"refresh_token": refresh.RefreshToken})
		r, err := http.Post(s.url+"/v1/auth/refresh", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusUnauthorized {
			t.Fatalf("refreshing a token of the deleted account: %d", r.StatusCode)
		}
		a, err := s.store.AccountByID(context.Background(), ana.ID)
		if err != nil {
			t.Fatal(err)
		}
		if a.Username != models.DeletedUsername(ana.ID) || a.Email != "" || a.DisplayName != "" {
			t.Fatalf("the deleted account still says %+v", a.User)
		}
		if _, err := s.store.UserByUsername(context.Background(), "ana"); err == nil {
			t.Fatal("the name ana still names an account")
		}

		ctx := context.Background()
		g, err := s.store.Game(ctx, active)
		if err != nil {
			t.Fatal(err)
		}
		if g.Status != models.StatusOver || len(g.WinnerSeats()) != 1 || g.Seats[g.WinnerSeats()[0]].Username != "bob" {
			t.Fatalf("the game in play: %s, winners %v", g.Status, g.WinnerSeats())
		}
		if g, _ := s.store.Game(ctx, mine); g.Status != models.StatusCancelled {
			t.Fatalf("ana's open game is %s", g.Status)
		}
		g, _ = s.store.Game(ctx, bobs)
		if g.Status != models.StatusOpen || g.SeatOf(ana.ID) >= 0 {
			t.Fatalf("bob's open game: %s, ana in seat %d", g.Status, g.SeatOf(ana.ID))
		}
		bobWeb.get(gamePath(active)).mustSee(t, 200, "Final scores", "The winner is")
	})
}
