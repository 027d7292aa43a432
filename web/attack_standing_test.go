package web_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// The attacks on standing answers through the board's form (POST
// /games/{id}/play with type=standing).

const webStandingPosition = `
name: standing answers through the board
players:
  - name: ana
    hand: [glitchy-junior, frontend-framework]
    deck: [data-lake, proof-of-concept, design-system]
  - name: bob
    hand: [hiring-freeze, open-source-library]
    deck: [rapid-prototype, data-lake]
market: [landing-page, spam-filter, todo-app]
challenge_deck: [sales-dashboard, booking-system]
`

// webStanding is game id's version and seat's standing answers, stored.
func (s *site) webStanding(t *testing.T, id int64, seat int) string {
	t.Helper()
	g, err := s.store.Game(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	st, err := engine.Unmarshal(g.State)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("v%d %+v", g.Version, st.Players[seat].Standing)
}

// TestAttackStandingForm: hostile standing forms (markup and control
// characters in the event, an overlong event, unknown cards, a value
// without its event, more boxes than any board has) are refused with a
// page that says so, never a 500, never the markup as sent, and change
// nothing; a form sent from a page older than the opponent's last move is
// saved; Ana's board never shows Bob's standing answers.
func TestAttackStandingForm(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		_, _, id := s.anaAndBob()
		s.stage(t, id, webStandingPosition)
		bob := s.client()
		bob.login("bob", "bob password")
		path := fmt.Sprintf("/games/%d/play", id)
		g, err := s.store.GameNoState(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		v := itoa(g.Version)
		before := s.webStanding(t, id, 1)
		many := make([]string, 65)
		for i := range many {
			many[i] = "place:hiring-freeze"
		}
		for i, tc := range []struct {
			name  string
			plays []string
		}{
			{"markup in the event", []string{`<script>alert(1)</script>:hiring-freeze`}},
			{"control characters in the event", []string{"pl\x00ace\r\n:hiring-freeze"}},
			{"an overlong event", []string{strings.Repeat("place", 20000) + ":hiring-freeze"}},
			{"an unknown card", []string{"place:<b>no-such-card</b>"}},
			{"a value without its event", []string{"hiring-freeze"}},
			{"a card that is no Hack", []string{"place:glitchy-junior"}},
			{"more boxes than any board has", many},
		} {
			r := bob.post(path, url.Values{"v": {v}, "key": {fmt.Sprintf("attack-%d", i)}, "type": {"standing"}, "pass": {"on"}, "play": tc.plays})
			if r.Status >= 500 || r.Status < 400 && r.Status != 200 {
				t.Errorf("%s: %d", tc.name, r.Status)
			}
			if strings.Contains(r.Body, "<script>alert(1)") || strings.Contains(r.Body, "<b>no-such-card") {
				t.Errorf("%s: the page shows the form's markup as sent", tc.name)
			}
			if now := s.webStanding(t, id, 1); now != before {
				t.Fatalf("%s: the refused form left %s, was %s", tc.name, now, before)
			}
		}
		// Ana plays her Tool: Bob's page is now older than the game.
		ana := s.client()
		ana.login("ana", "ana password")
		if _, err := s.play.Submit(context.Background(), id, accountID(t, s, "ana"), &g.Version,
			[]engine.Action{{Type: engine.ActPlayTool, Card: handCard(t, s, id, 0, "frontend-framework")}}, nil); err != nil {
			t.Fatal(err)
		}
		r := bob.post(path, url.Values{"v": {v}, "key": {"late"}, "type": {"standing"}, "play": {"place:hiring-freeze"}})
		if r.Status >= 400 {
			t.Errorf("a standing form from a page older than Ana's Tool: %d", r.Status)
		}
		if got := s.webStanding(t, id, 1); !strings.Contains(got, "{On:place Card:hiring-freeze}") {
			t.Errorf("Bob's standing answers after the late form: %s", got)
		}
		board := ana.get(fmt.Sprintf("/games/%d", id)).Body
		if i := strings.Index(board, `id="standing"`); i >= 0 {
			section, _, _ := strings.Cut(board[i:], "</section>")
			if strings.Contains(section, "Hiring Freeze") || strings.Contains(section, "checked") {
				t.Errorf("Ana's standing answers show Bob's: %s", section)
			}
		}
	})
}

func accountID(t *testing.T, s *site, name string) int64 {
	t.Helper()
	u, err := s.store.UserByUsername(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

func handCard(t *testing.T, s *site, id int64, seat int, card string) string {
	t.Helper()
	g, err := s.store.Game(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	st, err := engine.Unmarshal(g.State)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range st.Players[seat].Hand {
		if in.Card == card {
			return in.ID
		}
	}
	t.Fatalf("seat %d holds no %s", seat, card)
	return ""
}
