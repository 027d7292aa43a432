package api_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestAttackTalkOutsiderOfPrivateGame: dan has no seat in ana and bob's
// private game. He may not read its messages, post into it, mute it or
// follow it live: each answer says the game does not exist (404), and
// none holds a word of the players' talk.
func TestAttackTalkOutsiderOfPrivateGame(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ana, bob, dan := e.register("ana"), e.register("bob"), e.register("dan")
		g := e.startGame(map[string]any{"mode": "fast", "public": false, "invite": []string{"bob"}, "spectator_messages": true}, ana, bob)
		e.say(g.ID, ana, "our secret plan", -1)
		for _, r := range []req{
			{Method: "GET", Path: messagesPath(g.ID), Token: dan.Access},
			{Method: "GET", Path: messagesPath(g.ID) + "?limit=200", Token: dan.Access},
			{Method: "POST", Path: messagesPath(g.ID), Token: dan.Access, Body: map[string]any{"text": "let me in"}},
			{Method: "PUT", Path: messagesPath(g.ID) + "/mute", Token: dan.Access, Body: map[string]any{"muted": true}},
		} {
			res := e.do(r)
			if res.Status != 404 || strings.Contains(string(res.Body), "secret plan") {
				t.Errorf("%s %s: %d %s", r.Method, r.Path, res.Status, res.Body)
			}
		}
		if _, err := e.dialStream(t.Context(), fmt.Sprintf("/v1/games/%d/stream", g.ID), dan.Access, ""); err == nil {
			t.Error("dan follows the private game's stream")
		}
		if got := e.messages(g.ID, bob); len(got) != 1 || got[0].Text != "our secret plan" {
			t.Errorf("bob lists %+v", got)
		}
	})
}

// TestAttackTalkPlayerWhoLeft: eve joined a public game of three and left
// it before the start; cyd took the seat. Once it is going, eve is a
// spectator like any other: she reads the public messages (the game shows
// them to spectators) and none written to one seat, not even to the seat
// she once held, and she may neither post nor mute.
func TestAttackTalkPlayerWhoLeft(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ana, bob, cyd, eve := e.register("ana"), e.register("bob"), e.register("cyd"), e.register("eve")
		var g game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access,
			Body: map[string]any{"players": 3, "mode": "fast", "spectator_messages": true, "deck": deck(0)}}).decode(t, &g)
		join := fmt.Sprintf("/v1/games/%d/join", g.ID)
		e.must(200, req{Method: "POST", Path: join, Token: eve.Access, Body: map[string]any{"deck": deck(1)}})
		eveSeat := -1
		for _, s := range e.getGame(g.ID, ana).Seats {
			if s.Username != nil && *s.Username == "eve" {
				eveSeat = s.Seat
			}
		}
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/leave", g.ID), Token: eve.Access})
		e.must(200, req{Method: "POST", Path: join, Token: cyd.Access, Body: map[string]any{"deck": deck(1)}})
		e.must(200, req{Method: "POST", Path: join, Token: bob.Access, Body: map[string]any{"deck": deck(0)}})
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/start", g.ID), Token: ana.Access})
		g = e.getGame(g.ID, ana)
		seatOf := func(name string) int {
			for _, s := range g.Seats {
				if s.Username != nil && *s.Username == name {
					return s.Seat
				}
			}
			t.Fatalf("%s has no seat", name)
			return -1
		}
		if eveSeat < 0 {
			t.Fatal("eve had no seat")
		}
		e.say(g.ID, ana, "for the seat eve held", seatOf("cyd"))
		if seatOf("cyd") != eveSeat {
			e.say(g.ID, ana, "for the seat eve held", eveSeat)
		}
		e.say(g.ID, bob, "hello all", -1)
		if got := e.messages(g.ID, eve); len(got) != 1 || got[0].Text != "hello all" {
			t.Errorf("eve, who left, lists %+v", got)
		}
		if r := e.do(req{Method: "POST", Path: messagesPath(g.ID), Token: eve.Access, Body: map[string]any{"text": "I am back"}}); r.Status != 403 {
			t.Errorf("eve posted: %d %s", r.Status, r.Body)
		}
		if r := e.do(req{Method: "PUT", Path: messagesPath(g.ID) + "/mute", Token: eve.Access, Body: map[string]any{"muted": true}}); r.Status != 403 {
			t.Errorf("eve muted: %d %s", r.Status, r.Body)
		}
		for _, m := range e.messages(g.ID, cyd) {
			if m.Text == "I am back" {
				t.Error("eve's message was posted")
			}
		}
	})
}

// TestAttackTalkLineBreakEscapesIndent: in an email every line of a
// message is indented under its author's name, so that nothing a player
// writes reads as the service's own words. A carriage return alone is a
// line break to a mail reader (the quoted-printable body turns it into
// CRLF): the line after it must be indented too, not left at the margin
// where it could pass for an instruction of the service.
func TestAttackTalkLineBreakEscapesIndent(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		e.must(200, req{Method: "PUT", Path: "/v1/me/notification-preferences", Token: bob.Access,
			Body: map[string]any{"preferences": []map[string]any{{"kind": "message", "channel": "email", "enabled": true}}}})
		e.drain(t)
		sent := len(e.mail.all())
		spoof := `Data Monsters: reply "resign" to keep your seat.`
		for _, sep := range []string{"\r", "\r\r", "\n\r", "\r\n"} {
			e.say(g.ID, ana, "gg"+sep+spoof, -1)
		}
		e.drain(t)
		mails := e.mailsTo(bob, sent)
		if len(mails) == 0 {
			t.Fatal("bob got no email of the messages")
		}
		for _, m := range mails {
			text, html := mailText(t, m)
			for _, line := range strings.Split(text, "\n") {
				if strings.Contains(line, "resign") && !strings.HasPrefix(line, "    ") {
					t.Errorf("a line of a message is not indented in bob's email: %q\n%s", line, text)
				}
			}
			if !strings.Contains(text, "    "+spoof) || !strings.Contains(html, "keep your seat") {
				t.Errorf("bob's email does not show the message:\n%s", text)
			}
		}
	})
}

// TestAttackTalkControlCharacters: a text with control characters, a
// right-to-left override or bytes that are not UTF-8 is either posted as
// written (and read back the same) or refused with 422; never a server
// error, and a refused one posts nothing.
func TestAttackTalkControlCharacters(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		posted := 0
		for _, body := range []string{
			`{"text":"bell\u0007 escape\u001b[31m red"}`,
			`{"text":"\u202egnp.exe"}`,
			`{"text":"line\u2028sep"}`,
			`{"text":"\ud800 lone surrogate"}`,
			"{\"text\":\"raw \xff\xfe bytes\"}",
			`{"text":"\u0000"}`,
			`{"text":"\u200b"}`,
		} {
			r := e.do(req{Method: "POST", Path: messagesPath(g.ID), Token: ana.Access, Body: body, NoContract: true})
			switch r.Status {
			case 201:
				posted++
				var m message
				r.decode(t, &m)
				if got := e.messages(g.ID, bob); got[len(got)-1].Text != m.Text {
					t.Errorf("%q: bob reads %q, posted %q", body, got[len(got)-1].Text, m.Text)
				}
			case 400, 422:
			default:
				t.Errorf("%q: %d %s", body, r.Status, r.Body)
			}
		}
		if got := e.messages(g.ID, bob); len(got) != posted {
			t.Errorf("%d posted, bob lists %d", posted, len(got))
		}
	})
}

// TestAttackTalkAfterTheEnd: the talk outlives the game (a player may
// still write once it is over, as the play path documents), but a game
// cancelled before it started takes none, and a cursor or limit that is
// not one of the API's is refused, not a server error.
func TestAttackTalkAfterTheEnd(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/resign", g.ID), Token: ana.Access})
		if st := e.getGame(g.ID, bob).Status; st != "over" {
			t.Fatalf("after the resignation the game is %s", st)
		}
		e.say(g.ID, bob, "good game", -1)
		if got := e.messages(g.ID, ana); len(got) != 1 {
			t.Errorf("after the end ana lists %+v", got)
		}

		var open game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{"players": 2, "deck": deck(0)}}).decode(t, &open)
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/cancel", open.ID), Token: ana.Access})
		if r := e.do(req{Method: "POST", Path: messagesPath(open.ID), Token: ana.Access, Body: map[string]any{"text": "hello?"}}); r.Status != 409 {
			t.Errorf("a message in a cancelled game: %d %s", r.Status, r.Body)
		}

		for _, q := range []string{"?cursor=bm90LWEtY3Vyc29y", "?cursor=%00", "?cursor=" + strings.Repeat("A", 4000), "?limit=0", "?limit=201", "?limit=-1", "?limit=1e9"} {
			r := e.do(req{Method: "GET", Path: messagesPath(g.ID) + q, Token: ana.Access, NoContract: true})
			if r.Status != 400 && r.Status != 422 {
				t.Errorf("%s: %d %s", q, r.Status, trim(r.Body))
			}
		}
	})
}
