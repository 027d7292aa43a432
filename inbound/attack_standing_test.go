package inbound_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// The attacks on standing answers by email (DESIGN.md §9: "The end of a
// player's turn is the moment to offer them for the opponents' coming
// turn").

// standingEmailGame: Ana holds Merge Conflict, which cancels a Tool; Ben
// holds a Junior, whose place opens no window, and a Tool, whose play
// opens one for Ana.
const standingEmailGame = `name: standing answers by email
players:
  - {name: ana, hand: [merge-conflict, open-source-library], deck: [data-lake, proof-of-concept, design-system]}
  - {name: ben, hand: [frontend-framework, glitchy-junior], deck: [rapid-prototype, data-lake, design-system]}
`

// emailState is game id's engine state as stored.
func emailState(t *testing.T, e *env, id int64) (*models.Game, *engine.State) {
	t.Helper()
	g, err := e.st.Game(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.Unmarshal(g.State)
	if err != nil {
		t.Fatal(err)
	}
	return g, s
}

// TestAttackStandingOfferAnsweredLate: Ana ends her turn and is offered
// standing answers for Ben's. Ben moves first (a place, no window), then
// Ana answers the offer: her standing answers are set, though the game
// moved on since the email that offered them (a reply to it could never
// go through once the opponent moved, and no other email comes until a
// window asks her: the offer would spare nothing). Then Ben's Tool, in a
// reply written before her answers were set, is played, not refused as
// stale for a change he cannot see, and her standing Merge Conflict
// answers it with no prompt.
func TestAttackStandingOfferAnsweredLate(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		e := newEnv(t, d)
		ana, ben := e.user("ana"), e.user("ben")
		g := e.scenarioGame(t, standingEmailGame, ana, ben)
		offer := e.answered(t, ana, e.general(g.ID, ana, 0), "end")
		if !strings.Contains(offer.Text, "always pass") {
			t.Fatalf("the end of Ana's turn offers no standing answers:\n%s", offer.Text)
		}
		if a := e.answered(t, ben, e.general(g.ID, ben, 1), "place glitchy junior"); !strings.Contains(a.Text, "Your moves were played.") {
			t.Fatalf("Ben's place:\n%s", a.Text)
		}
		benMail := e.general(g.ID, ben, 1) // Ben's email, before Ana answers the offer
		a := e.answered(t, ana, offer, "always pass\nmerge conflict when tool")
		if !strings.Contains(a.Text, "Your moves were played.") {
			t.Fatalf("Ana's answer to the offer, once Ben moved, is refused:\n%s", a.Text)
		}
		_, s := emailState(t, e, g.ID)
		want := engine.Standing{Pass: true, Plays: []engine.StandingPlay{{On: engine.EvPlayTool, Card: "merge-conflict"}}}
		if got := s.Players[0].Standing; got.Pass != want.Pass || !slices.Equal(got.Plays, want.Plays) {
			t.Fatalf("Ana's standing answers: %+v, want %+v", got, want)
		}
		if strings.Contains(strings.ToLower(a.Text+a.HTML), "frontend framework") {
			t.Errorf("the answer to Ana names a card of Ben's hand:\n%s", a.Text)
		}
		if a := e.answered(t, ben, benMail, "play frontend framework"); !strings.Contains(a.Text, "Your moves were played.") {
			t.Fatalf("Ben's Tool, written before Ana's standing answers were set, is refused:\n%s", a.Text)
		}
		_, s = emailState(t, e, g.ID)
		if len(s.Prompts) > 0 || slices.ContainsFunc(s.Players[0].Hand, func(in engine.Inst) bool { return in.Card == "merge-conflict" }) {
			t.Fatalf("Ana's standing Merge Conflict did not answer Ben's Tool: prompts %+v, her hand %+v", s.Prompts, s.Players[0].Hand)
		}
	})
}

// TestAttackStandingByEmailRefused: standing answers by email name a Hack
// and an event, and come from a seat still playing: a card that is no
// Hack, an unknown event, a Hack that answers another event, a huge line,
// a reply after the seat resigned, each is refused with its reason and
// changes nothing.
func TestAttackStandingByEmailRefused(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		e := newEnv(t, d)
		ana, ben := e.user("ana"), e.user("ben")
		g := e.scenarioGame(t, standingEmailGame, ana, ben)
		mail := e.general(g.ID, ana, 0)
		for _, tc := range []struct{ body, reason string }{
			{"glitchy junior when place", "no Hack is named"},
			{"merge conflict when lunch", "after \"when\" name an event"},
			{"merge conflict when place", "does not answer"},
			{"merge conflict when " + strings.Repeat("tool ", 150), "a line holds at most"},
			{"merge conflict when tool tool", "after \"when\" name an event"},
			{"play when tool", "name the Hack"},
		} {
			before := e.version(g.ID)
			a := e.answered(t, ana, mail, tc.body)
			if strings.Contains(a.Text, "Your moves were played.") || !strings.Contains(strings.Join(strings.Fields(a.Text), " "), tc.reason) {
				t.Errorf("%.60q: the answer does not refuse it with %q:\n%.2000s", tc.body, tc.reason, a.Text)
			}
			if e.version(g.ID) != before {
				t.Errorf("%.60q: the refused reply moved the game", tc.body)
			}
		}
		_, s := emailState(t, e, g.ID)
		if st := s.Players[0].Standing; st.Pass || len(st.Plays) > 0 {
			t.Fatalf("refused replies set standing answers: %+v", st)
		}
		res, err := e.play.Resign(context.Background(), g.ID, ben.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		e.settle()
		before := e.version(g.ID)
		if a := e.answered(t, ben, e.general(g.ID, ben, 1), "always pass"); strings.Contains(a.Text, "Your moves were played.") {
			t.Errorf("Ben set standing answers after he resigned:\n%s", a.Text)
		}
		if e.version(g.ID) != before {
			t.Error("a reply after the resignation moved the game")
		}
	})
}
