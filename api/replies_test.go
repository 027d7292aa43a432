package api_test

import (
	"context"
	"fmt"
	"testing"
)

// TestEmailRepliesSettings: a user turns playing by email reply off for
// all their games in PATCH /v1/me, and on or off for one game; only a
// player of the game may.
func TestEmailRepliesSettings(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob, cy := e.register("ana"), e.register("bob"), e.register("cyd")
		var me struct {
			Notifications struct {
				Email, Turns bool
				Replies      *bool
			}
		}
		e.must(200, req{Method: "GET", Path: "/v1/me", Token: ana.Access}).decode(t, &me)
		if me.Notifications.Replies == nil || !*me.Notifications.Replies {
			t.Fatalf("replies are not on by default: %+v", me)
		}
		e.must(200, req{Method: "PATCH", Path: "/v1/me", Token: ana.Access,
			Body: map[string]any{"notifications": map[string]bool{"email": true, "turns": true, "replies": false}}}).decode(t, &me)
		if me.Notifications.Replies == nil || *me.Notifications.Replies {
			t.Fatalf("PATCH: %+v", me)
		}
		e.must(200, req{Method: "GET", Path: "/v1/me", Token: ana.Access}).decode(t, &me)
		if *me.Notifications.Replies {
			t.Fatal("replies back on")
		}
		// Without the field, the choice stays.
		e.must(200, req{Method: "PATCH", Path: "/v1/me", Token: ana.Access, Body: map[string]any{"display_name": "Ana"}}).decode(t, &me)
		if *me.Notifications.Replies {
			t.Fatal("a PATCH without replies turned them on")
		}
		set, err := e.store.MailSettingsOf(context.Background(), ana.ID, 0)
		if err != nil || set.RepliesOn() {
			t.Fatalf("stored: %+v %v", set, err)
		}

		g := e.startGame(map[string]any{}, ana, bob)
		path := fmt.Sprintf("/v1/games/%d/email-replies", g.ID)
		var out struct {
			GameID  int64 `json:"game_id"`
			Enabled bool  `json:"enabled"`
		}
		e.must(200, req{Method: "PUT", Path: path, Token: ana.Access, Body: map[string]bool{"enabled": true}}).decode(t, &out)
		if out.GameID != g.ID || !out.Enabled {
			t.Fatalf("%+v", out)
		}
		if set, _ := e.store.MailSettingsOf(context.Background(), ana.ID, g.ID); !set.RepliesOn() {
			t.Fatal("the game's choice does not win over the user's")
		}
		if r := e.do(req{Method: "PUT", Path: path, Token: cy.Access, Body: map[string]bool{"enabled": true}}); r.Status != 403 {
			t.Fatalf("a non-player: %d %s", r.Status, r.Body)
		}
		if r := e.do(req{Method: "PUT", Path: path, Token: ana.Access, Body: map[string]any{}, NoContract: true}); r.Status != 422 {
			t.Fatalf("no enabled: %d %s", r.Status, r.Body)
		}
		if r := e.do(req{Method: "POST", Path: "/v1/inbound/email", Body: "From: a@b.c\r\n\r\n1", NoContract: true}); r.Status != 503 {
			t.Fatalf("inbound with no inbound path: %d", r.Status)
		}
	})
}
