package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/internal/ssetest"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/play"
)

// hostile is a message that would be markup if it were not escaped.
const hostile = `<script>alert("x")</script><img src=x onerror=alert(1)> & gg`

// hookBodies is a webhook receiver that keeps what it gets.
type hookBodies struct {
	mu     sync.Mutex
	bodies []string
}

func (h *hookBodies) start(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, string(b))
		h.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (h *hookBodies) has(text string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.ContainsFunc(h.bodies, func(b string) bool { return strings.Contains(b, text) })
}

// stream opens the API's notification stream of u and returns its events
// once it is connected.
func (s *site) stream(u apiUser) <-chan ssetest.Event {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s.t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/v1/notifications/stream", nil)
	req.Header.Set("Authorization", "Bearer "+u.Access)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		s.t.Fatalf("the stream: %v %v", res, err)
	}
	return ssetest.Read(res.Body)
}

// heard waits for an event of type typ holding text on ch.
func heard(t *testing.T, ch <-chan ssetest.Event, typ, text string) ssetest.Event {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatal("the stream ended")
			}
			if ev.Type == typ && strings.Contains(ev.Data, text) {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s event with %q", typ, text)
		}
	}
}

// eventually waits up to 15 s for ok.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTalkFromTheBoard: ana writes from the board's form; bob reads it on
// his board (escaped), on his notification stream, at his webhook and in
// his next email of the game, and the game's version does not move.
func TestTalkFromTheBoard(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{outbox: true})
		ana, bob, apiAna, apiBob := s.twoPlayers()
		var hooks hookBodies
		s.apiCall(http.MethodPost, "/v1/webhooks", apiBob.Access, map[string]any{"url": hooks.start(t)}, nil)
		id := s.startGame(apiAna, apiBob)
		s.waitMail("bob@example.com", "The game has started")
		events := s.stream(apiBob)

		page := ana.get(gamePath(id)).mustSee(t, http.StatusOK, "At the table", "No message yet.")
		version := boardVersion(t, page.Body)
		ana.send(mustForm(t, page.Body, "Send the message"), "text", hostile).mustRedirect(t, gamePath(id))
		if v := boardVersion(t, ana.get(gamePath(id)).Body); v != version {
			t.Errorf("a message moved the board from version %s to %s", version, v)
		}
		seen := bob.get(gamePath(id)).mustSee(t, http.StatusOK, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; gg")
		if strings.Contains(seen.Body, "<script>alert") || strings.Contains(seen.Body, "<img src=x") {
			t.Fatal("the board shows the message unescaped")
		}
		heard(t, events, "message", `"from":"ana"`)
		eventually(t, "bob's webhook", func() bool { return hooks.has(`"event":"message"`) && hooks.has("onerror=alert(1)") })

		// bob's next email of the game (the end, which always goes by
		// email) shows it, escaped in HTML.
		s.apiCall(http.MethodPost, "/v1/games/"+itoa(id)+"/resign", apiAna.Access, map[string]any{}, nil)
		over := s.waitMail("bob@example.com", "Game over")
		if !strings.Contains(over.Text, "At the table") || !strings.Contains(over.Text, hostile) {
			t.Errorf("bob's next email:\n%s", over.Text)
		}
		if strings.Contains(over.HTML, "<script>alert") || !strings.Contains(over.HTML, "&lt;script&gt;") {
			t.Errorf("the email's HTML shows the message unescaped")
		}
	})
}

// twoPlayers registers ana and bob in browsers of their own, and logs
// them in to the API too.
func (s *site) twoPlayers() (ana, bob *client, apiAna, apiBob apiUser) {
	s.t.Helper()
	ana, bob = s.client(), s.client()
	ana.register("ana", "password-ana")
	bob.register("bob", "password-bob")
	return ana, bob, s.apiLogin("ana", "password-ana"), s.apiLogin("bob", "password-bob")
}

// boardVersion is the data-version of a board page.
func boardVersion(t *testing.T, body string) string {
	t.Helper()
	_, rest, ok := strings.Cut(body, `data-version="`)
	v, _, _ := strings.Cut(rest, `"`)
	if !ok || v == "" {
		t.Fatal("no board version on the page")
	}
	return v
}

// TestTalkPrivateOnTheBoard: in a game of three opened from the new game
// form with the spectators' messages on, ana's message to bob shows on
// bob's board only: not on cyd's, nor to a spectator or a visitor, who
// read the public one. A game that hides its messages shows spectators
// none.
func TestTalkPrivateOnTheBoard(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{outbox: true})
		ana, bob, cyd, dan := s.client(), s.client(), s.client(), s.client()
		for c, name := range map[*client]string{ana: "ana", bob: "bob", cyd: "cyd", dan: "dan"} {
			c.register(name, "password-"+name)
		}
		f := mustForm(t, ana.get("/new-game").mustSee(t, http.StatusOK, "read the players’ messages").Body, "Open the game")
		loc := ana.send(f, "players", "3", "mode", "fast", "deck", "prebuilt:running-a-startup", "public", "on",
			"spectator_messages", "on").mustRedirect(t, "/games/")
		id := gameIDOf(t, loc)
		for _, name := range []string{"bob", "cyd"} {
			u := s.apiLogin(name, "password-"+name)
			s.apiCall(http.MethodPost, "/v1/games/"+itoa(id)+"/join", u.Access, map[string]any{"deck": map[string]string{"prebuilt": "working-for-the-enterprise"}}, nil)
		}
		s.apiCall(http.MethodPost, "/v1/games/"+itoa(id)+"/start", s.apiLogin("ana", "password-ana").Access, nil, nil)

		page := ana.get(gamePath(id)).mustSee(t, http.StatusOK, "Everyone at the table", "bob only", "cyd only")
		ana.send(mustForm(t, page.Body, "Send the message"), "text", "cyd leads: hold the Market", "to", "1").mustRedirect(t, gamePath(id))
		// The same form sent again is the same message: posted once.
		ana.send(mustForm(t, page.Body, "Send the message"), "text", "cyd leads: hold the Market", "to", "1").mustRedirect(t, gamePath(id))
		page = ana.get(gamePath(id))
		ana.send(mustForm(t, page.Body, "Send the message"), "text", "Good luck, all", "to", "").mustRedirect(t, gamePath(id))
		if n := strings.Count(bob.get(gamePath(id)).Body, "hold the Market"); n != 1 {
			t.Errorf("a form sent twice posted %d messages", n)
		}

		bob.get(gamePath(id)).mustSee(t, http.StatusOK, "cyd leads: hold the Market", "to you only", "Good luck, all")
		ana.get(gamePath(id)).mustSee(t, http.StatusOK, "to bob only")
		visitor := s.client()
		for who, c := range map[string]*client{"cyd": cyd, "dan, watching": dan, "a visitor": visitor} {
			r := c.get(gamePath(id)).mustSee(t, http.StatusOK, "Good luck, all")
			if strings.Contains(r.Body, "hold the Market") {
				t.Errorf("%s reads the private message", who)
			}
		}
		if strings.Contains(dan.get(gamePath(id)).Body, "Send the message") {
			t.Error("a spectator is offered to write")
		}
		// dan may not post anyway.
		if r := dan.post(gamePath(id)+"/messages", map[string][]string{"text": {"hi"}}); r.Status != http.StatusForbidden {
			t.Errorf("a spectator posted: %d", r.Status)
		}

		// A game that keeps its messages among its players.
		apiAna, apiBob := s.apiLogin("ana", "password-ana"), s.apiLogin("bob", "password-bob")
		hidden := s.startGameOf(apiAna, apiBob, true)
		s.apiCall(http.MethodPost, "/v1/games/"+itoa(hidden)+"/messages", apiAna.Access, map[string]any{"text": "just us"}, nil)
		r := dan.get(gamePath(hidden)).mustSee(t, http.StatusOK)
		if strings.Contains(r.Body, "just us") || strings.Contains(r.Body, "At the table") {
			t.Error("a spectator reads the messages of a game that keeps them among its players")
		}
	})
}

// startGameOf is startGame, the game public or not.
func (s *site) startGameOf(a, b apiUser, public bool) int64 {
	s.t.Helper()
	deck := map[string]string{"prebuilt": "running-a-startup"}
	var g struct {
		ID int64 `json:"id"`
	}
	s.apiCall(http.MethodPost, "/v1/games", a.Access, map[string]any{"players": 2, "mode": "fast", "deck": deck,
		"invite": []string{b.Name}, "public": public}, &g)
	s.apiCall(http.MethodPost, "/v1/games/"+itoa(g.ID)+"/join", b.Access, map[string]any{"deck": deck}, nil)
	s.apiCall(http.MethodPost, "/v1/games/"+itoa(g.ID)+"/start", a.Access, nil, nil)
	return g.ID
}

// TestTalkRefusedAndMuted: a message too long is refused on the board
// with the reason beside the field and the text kept, and nothing is
// posted; past the rate limit the page says to wait; a player who mutes
// the game's messages no longer sees them, and sees them again once
// unmuted.
func TestTalkRefusedAndMuted(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{outbox: true})
		ana, bob, apiAna, apiBob := s.twoPlayers()
		id := s.startGame(apiAna, apiBob)
		page := ana.get(gamePath(id)).mustSee(t, http.StatusOK)
		long := strings.Repeat("ü", play.MaxMessageRunes+1)
		r := ana.send(mustForm(t, page.Body, "Send the message"), "text", long)
		r.mustSee(t, http.StatusUnprocessableEntity, "Your message was not sent.", "At most 500 characters; this one has 501.",
			`aria-invalid="true"`, ">"+long+"</textarea>")
		bob.get(gamePath(id)).mustSee(t, http.StatusOK, "No message yet.")
		for i := range play.MessageBurst {
			page = ana.get(gamePath(id))
			ana.send(mustForm(t, page.Body, "Send the message"), "text", "burst "+itoa(int64(i))).mustRedirect(t, gamePath(id))
		}
		page = ana.get(gamePath(id))
		r = ana.send(mustForm(t, page.Body, "Send the message"), "text", "one too many")
		r.mustSee(t, http.StatusTooManyRequests, "Too many messages in this game: wait")
		if r.Header.Get("Retry-After") == "" {
			t.Error("no Retry-After")
		}
		if strings.Contains(bob.get(gamePath(id)).Body, "one too many") {
			t.Error("a message past the limit was posted")
		}

		// bob mutes the game's messages.
		muted := bob.send(mustForm(t, bob.get(gamePath(id)).Body, "Mute this game’s messages"))
		muted.mustRedirect(t, gamePath(id))
		b := bob.get(gamePath(id)).mustSee(t, http.StatusOK, "You muted this game’s messages", "Show this game’s messages again")
		if strings.Contains(b.Body, "burst 1") {
			t.Error("a muted game's messages are shown")
		}
		bob.send(mustForm(t, b.Body, "Show this game’s messages again")).mustRedirect(t, gamePath(id))
		bob.get(gamePath(id)).mustSee(t, http.StatusOK, "burst 1", "Mute this game’s messages")
	})
}
