package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// problemOf decodes a problem's code, detail, card and rule.
type problemBody struct{ Code, Detail, Card, Rule string }

func (r *resp) problem(t *testing.T) problemBody {
	t.Helper()
	var p problemBody
	r.decode(t, &p)
	return p
}

// hugeDeck is 28 ordinary cards and four entries of 2^62 copies of
// rapid-prototype: 2^64 copies, which wrap an int's sum to 0, so that the
// list's size reads 28.
func hugeDeck(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, c := range engine.Standard().Cards() {
		if c.Type != engine.Challenge && !c.One && c.Many == 0 && c.ID != "rapid-prototype" && len(out) < 28 {
			out = append(out, map[string]any{"card": c.ID, "count": 1})
		}
	}
	for range 4 {
		out = append(out, map[string]any{"card": "rapid-prototype", "count": 1 << 62})
	}
	return out
}

// TestOverflowDeckRefused: a deck whose counts wrap the sum is refused
// with 422 naming the card and the copy rule, and the server answers on.
// A deck stored before counts were bounded (written to the store
// directly), as a deck list and as a seat's deck in a lobby, cannot take
// the server down at the start either: the start is refused the same way.
func TestOverflowDeckRefused(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ana, bob := e.register("ana"), e.register("bob")
		r := e.do(req{Method: "POST", Path: "/v1/decks", Token: ana.Access, Body: map[string]any{"name": "huge", "cards": hugeDeck(t)}})
		if p := r.problem(t); r.Status != 422 || p.Code != "invalid_deck" || p.Card != "rapid-prototype" || p.Rule != "copies" {
			t.Fatalf("overflow deck: %d %s", r.Status, r.Body)
		}
		e.must(200, req{Method: "GET", Path: "/healthz"})

		// Stored as it was accepted before: a deck list, then games with it.
		raw, _ := json.Marshal(hugeDeck(t))
		stored := &models.Deck{UserID: bob.ID, Name: "huge", Cards: string(raw)}
		if err := e.store.CreateDeck(ctx, stored); err != nil {
			t.Fatal(err)
		}
		var g game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access,
			Body: map[string]any{"players": 2, "public": true, "deck": deck(0)}}).decode(t, &g)
		r = e.do(req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/join", g.ID), Token: bob.Access,
			Body: map[string]any{"deck": map[string]any{"deck_id": stored.ID}}})
		if p := r.problem(t); r.Status != 422 || p.Card != "rapid-prototype" || p.Rule != "copies" {
			t.Fatalf("join with the stored deck: %d %s", r.Status, r.Body)
		}
		e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/decks/%d", stored.ID), Token: bob.Access})

		// A seat joined with it before the fix: its deck is in the seat row.
		for _, office := range []bool{false, true} {
			var g game
			e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access,
				Body: map[string]any{"players": 2, "office": office, "deck": deck(0)}}).decode(t, &g)
			e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/join", g.ID), Token: bob.Access,
				Body: map[string]any{"deck": deck(1)}})
			var cards []engine.DeckEntry
			json.Unmarshal(raw, &cards)
			list, _ := json.Marshal(engine.Deck{ID: "huge", Name: "huge", Cards: cards})
			if _, err := e.store.Mutate(ctx, g.ID, func(g *models.Game) (*models.Change, error) {
				s := string(list)
				g.Seats[1].Deck = &s
				g.Version++
				return &models.Change{}, nil
			}); err != nil {
				t.Fatal(err)
			}
			r := e.do(req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/start", g.ID), Token: ana.Access})
			if p := r.problem(t); r.Status != 422 || p.Card != "rapid-prototype" || p.Rule != "copies" {
				t.Fatalf("office %v: start with the stored seat deck: %d %s", office, r.Status, r.Body)
			}
			if got := e.getGame(g.ID, ana); got.Status != "open" {
				t.Fatalf("office %v: the refused start left the game %s", office, got.Status)
			}
		}
		e.must(200, req{Method: "GET", Path: "/healthz"})
	})
}

// TestRequestBounds: every list or string a request can make the server
// keep or work through is bounded, and a request past a bound gets 422
// naming the field.
func TestRequestBounds(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		many := func(n int, s string) []string {
			out := make([]string, n)
			for i := range out {
				out[i] = fmt.Sprintf("%s-%d", s, i)
			}
			return out
		}
		plays := make([]map[string]string, 65)
		for i := range plays {
			plays[i] = map[string]string{"on": "play_tool", "card": "stack-overflow"}
		}
		long := strings.Repeat("x", 129)
		for _, tc := range []struct {
			name, method, path string
			body               any
			field              string
		}{
			{"choices", "POST", actionsPath(g.ID), map[string]any{"expected_version": g.Version,
				"actions": []map[string]any{{"type": "answer", "prompt": "p", "choices": many(300, "o")}}}, "actions[0].choices"},
			{"challenges", "POST", actionsPath(g.ID), map[string]any{"expected_version": g.Version,
				"actions": []map[string]any{{"type": "end_turn"}, {"type": "claim", "challenges": many(33, "c")}}}, "actions[1].challenges"},
			{"standing plays", "POST", actionsPath(g.ID), map[string]any{"expected_version": g.Version,
				"actions": []map[string]any{{"type": "standing", "standing": map[string]any{"plays": plays}}}}, "actions[0].standing.plays"},
			{"card id", "POST", actionsPath(g.ID), map[string]any{"expected_version": g.Version,
				"actions": []map[string]any{{"type": "place", "card": long}}}, "actions[0].card"},
			{"choice id", "POST", actionsPath(g.ID), map[string]any{"expected_version": g.Version,
				"actions": []map[string]any{{"type": "answer", "prompt": "p", "choices": []string{"a", long}}}}, "actions[0].choices[1]"},
			{"deck entries", "POST", "/v1/decks", map[string]any{"name": "d", "cards": make([]map[string]any, 201)}, "cards"},
			{"deck card id", "POST", "/v1/decks", map[string]any{"name": "d", "cards": []map[string]any{{"card": long, "count": 1}}}, "cards[0].card"},
			{"deck name", "POST", "/v1/decks", map[string]any{"name": strings.Repeat("n", 65), "cards": []map[string]any{}}, "name"},
			{"webhook url", "POST", "/v1/webhooks", map[string]any{"url": "https://example.com/" + strings.Repeat("u", 2000)}, "url"},
			{"webhook events", "POST", "/v1/webhooks", map[string]any{"url": "https://example.com/h",
				"events": strings.Split(strings.Repeat("your_turn,", 21), ",")[:21]}, "events"},
			{"preferences", "PUT", "/v1/me/notification-preferences", map[string]any{"preferences": func() []map[string]any {
				out := make([]map[string]any, 101)
				for i := range out {
					out[i] = map[string]any{"kind": "your_turn", "channel": "email", "enabled": true}
				}
				return out
			}()}, "preferences"},
		} {
			r := e.do(req{Method: tc.method, Path: tc.path, Token: ana.Access, Body: tc.body, NoContract: true})
			if p := r.problem(t); r.Status != 422 || !strings.HasPrefix(p.Detail, tc.field+":") {
				t.Errorf("%s: %d %s; want 422 naming %s", tc.name, r.Status, trim(r.Body), tc.field)
			}
		}
		// Deep nesting: refused by the decoder (its depth limit), the body
		// bounded by the size limit.
		nested := `{"name":` + strings.Repeat("[", 30000) + strings.Repeat("]", 30000) + `,"cards":[]}`
		if r := e.do(req{Method: "POST", Path: "/v1/decks", Token: ana.Access, Body: nested, NoContract: true}); r.Status != 400 {
			t.Errorf("deeply nested body: %d %s", r.Status, trim(r.Body))
		}
		e.must(200, req{Method: "GET", Path: "/healthz"})
		if got := e.getGame(g.ID, ana); got.Version != g.Version {
			t.Fatalf("a refused request changed the game: version %d, was %d", got.Version, g.Version)
		}
	})
}

// TestRateLimitFields: every response of a rate-limited route says how
// its limits stand (RateLimit-Policy always; RateLimit once the request
// was counted), the 429 with Retry-After; the numbers follow the attempts
// (a login with the right password gives its attempts back), on two
// servers sharing the buckets. And every operation of openapi.yaml that
// may answer 429 documents Retry-After, and the fields where it counts.
func TestRateLimitFields(t *testing.T) {
	cfg := testConfig()
	cfg.LoginBurst, cfg.LoginEvery = 2, time.Minute
	cfg.LoginAddressBurst, cfg.LoginAddressEvery = 30, 10*time.Second
	cfg.RegisterBurst, cfg.RegisterEvery = 2, 3*time.Minute
	eachDBReplicas(t, cfg, func(t *testing.T, a, b *replica) {
		fields := func(what string, r *resp, policy, left string) {
			t.Helper()
			if got := r.Header.Get("RateLimit-Policy"); got != policy {
				t.Errorf("%s: RateLimit-Policy %q, want %q", what, got, policy)
			}
			if got := r.Header.Get("RateLimit"); got != left {
				t.Errorf("%s: RateLimit %q, want %q", what, got, left)
			}
		}
		const reg = `"register-address";q=2;w=360`
		bad := a.do(req{Method: "POST", Path: "/v1/auth/register", NoContract: true,
			Body: map[string]string{"username": "A", "password": "password-x"}})
		if bad.Status != 422 {
			t.Fatalf("a bad username: %d", bad.Status)
		}
		fields("a registration refused for its form", bad, reg, "")
		ana := a.register("ana")
		fields("a login of nobody", a.do(loginReq("nobody", "x")), `"login-address";q=30;w=300, "login-account";q=2;w=120`,
			`"login-address";r=29;t=10, "login-account";r=1;t=60`)
		r := b.do(req{Method: "POST", Path: "/v1/auth/register", Body: map[string]string{"username": "bob", "password": "password-bob"}})
		fields("the second registration, on the other server", r, reg, `"register-address";r=0;t=360`)
		r = a.do(req{Method: "POST", Path: "/v1/auth/register", Body: map[string]string{"username": "cyd", "password": "password-cyd"}})
		limited(t, "a third registration", r)
		fields("a third registration", r, reg, `"register-address";r=0;t=360`)

		// ana's logins: a wrong password counts, the right one gives back.
		const login = `"login-address";q=30;w=300, "login-account";q=2;w=120`
		fields("a wrong password", b.do(loginReq("ana", "wrong")), login, `"login-address";r=28;t=20, "login-account";r=1;t=60`)
		fields("the right password", a.must(200, loginReq("ana", "password-ana")), login,
			`"login-address";r=28;t=20, "login-account";r=1;t=60`)
		fields("a wrong password again", a.do(loginReq("ana", "wrong")), login, `"login-address";r=27;t=30, "login-account";r=0;t=120`)
		r = b.do(loginReq("ana", "password-ana"))
		limited(t, "a login with no attempt left", r)
		fields("a login with no attempt left", r, login, `"login-address";r=27;t=30, "login-account";r=0;t=120`)
		r = a.do(req{Method: "POST", Path: "/v1/me/password", Token: "not-a-token",
			Body: map[string]string{"current_password": "x", "new_password": "password-new"}})
		if r.Status != 401 {
			t.Fatalf("a password change without a session: %d", r.Status)
		}
		fields("a password change without a session", r, login, "")
		r = b.do(passwordReq(ana.Access, "password-ana", "password-new"))
		limited(t, "a password change with no attempt left", r)
		fields("a password change with no attempt left", r, login, `"login-address";r=27;t=30, "login-account";r=0;t=120`)
	})

	contract(t)
	for path, item := range specDoc.Paths.Map() {
		for method, op := range item.Operations() {
			r := op.Responses.Value("429")
			if r == nil {
				continue
			}
			if h := r.Value.Headers["Retry-After"]; h == nil || !h.Value.Required {
				t.Errorf("%s %s may answer 429 without Retry-After", method, path)
			}
			if path == "/v1/inbound/email" {
				// It limits senders, not its client, and says so with
				// Retry-After alone (inbound's TestRefusals reads it):
				// the contract may promise no other field.
				for name, h := range r.Value.Headers {
					if name != "Retry-After" && h.Value.Required {
						t.Errorf("%s %s 429 promises %s, which a sender's limit does not send", method, path, name)
					}
				}
				continue
			}
			for code, res := range op.Responses.Map() {
				if res.Value.Headers["RateLimit-Policy"] == nil {
					t.Errorf("%s %s %s: no RateLimit-Policy", method, path, code)
				}
			}
		}
	}
}
