package inbound_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/inbound"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
)

// The attacks on a whole turn in one email reply (DESIGN.md §9).

// trace is what a refused reply must leave as it was: the game's version,
// its action log and events, and the email jobs written (the answer to
// the reply is the one more a refusal writes).
func (e *env) trace(id int64) [4]int64 {
	e.t.Helper()
	ctx := context.Background()
	acts, err := e.st.Actions(ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	evs, err := e.st.EventsAfter(ctx, id, 0, 100000)
	if err != nil {
		e.t.Fatal(err)
	}
	db, _ := e.st.SQLDB()
	var jobs int64
	if err := db.QueryRow(`SELECT count(*) FROM river_job WHERE kind = 'dm_email'`).Scan(&jobs); err != nil {
		e.t.Fatal(err)
	}
	return [4]int64{e.version(id), int64(len(acts)), int64(len(evs)), jobs}
}

// batchScenario is Ana's turn with the Tools that together claim Landing
// Page, and Ben holding nothing that answers: no window opens.
const batchScenario = `name: a whole turn in one reply
players:
  - {name: ana, hand: [frontend-framework, rapid-prototype, open-source-library, hiring-freeze], deck: [data-lake, proof-of-concept, design-system]}
  - {name: ben, hand: [glitchy-junior], deck: [rapid-prototype, cloud-outage]}
market: [landing-page, spam-filter]
challenge_deck: [sales-dashboard, booking-system]
`

// TestAttackBatchReplyRefusedWhole: replies whose late command fails, that
// cross the end of the turn, that write a number in other digits, or that
// name more moves than a batch holds, are refused whole: the version, the
// action log, the events are as they were, and the only email written is
// the answer to the reply, to its author, which names the command at
// fault and tells no card Ana has not seen. The whole turn then plays in
// one reply, its signature and quote left out.
func TestAttackBatchReplyRefusedWhole(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		e := newEnv(t, d)
		ana, ben := e.user("ana"), e.user("ben")
		g := e.scenarioGame(t, batchScenario, ana, ben)
		e.settle()
		many := strings.TrimSuffix(strings.Repeat("always pass, ", 20), ", ")
		for _, tc := range []struct{ name, body, line string }{
			{"a late command fails", "play frontend\nplay rapid\nclaim spam filter\nend", "claim spam filter"},
			{"a move after the end of the turn", "play frontend\nend\nplay rapid", "play rapid"},
			{"a pass after the end of the turn", "end\npass", "pass"},
			{"the same card twice", "play frontend, play frontend", "play frontend"},
			{"full-width digits after a move", "play frontend\n２", "２"},
			{"Arabic-Indic digits after a move", "play frontend\r\n٣\r\n\r\nThanks!", "٣"},
			{"more moves than a batch holds", many + "\n" + many + "\n" + many, "always pass"},
		} {
			before := e.trace(g.ID)
			m := replyTo(ana, e.general(g.ID, ana, 0), tc.body)
			raw := m.raw()
			res, err := e.in.Receive(context.Background(), inbound.Envelope{MailFrom: ana.Email, HasReturnPath: true, Rcpt: []string{m.To}, Raw: raw})
			if err != nil {
				t.Fatal(err)
			}
			e.settle()
			a := e.answerTo(messageIDOf(raw))
			switch {
			case res.Outcome != inbound.Refused:
				t.Errorf("%s: %s %s", tc.name, res.Outcome, res.Reason)
			case a == nil:
				t.Errorf("%s: no answer", tc.name)
			case !strings.Contains(a.Text, "Nothing was played") || !strings.Contains(a.Text, "  > "+tc.line+"\n") || a.To != "<"+ana.Email+">" && !strings.Contains(a.To, ana.Email):
				t.Errorf("%s: the answer does not name %q:\n%s", tc.name, tc.line, a.Text)
			}
			if a != nil {
				for _, hidden := range []string{"Data Lake", "Proof of Concept", "Design System", "Glitchy", "Cloud Outage"} {
					if strings.Contains(a.Text, hidden) {
						t.Errorf("%s: the answer tells %q:\n%s", tc.name, hidden, a.Text)
					}
				}
			}
			after := e.trace(g.ID)
			if want := [4]int64{before[0], before[1], before[2], before[3] + 1}; after != want {
				t.Errorf("%s: version, actions, events, email jobs %v, was %v: want only the answer written", tc.name, after, before)
			}
		}
		before := e.trace(g.ID)
		a := e.answered(t, ana, e.general(g.ID, ana, 0),
			"Play frontend framework;\tplay rapid\r\nplay open source, claim landing page\nend\n-- \nAna, desk 3\nplay hiring freeze when place")
		if !strings.Contains(a.Text, "Your moves were played.") {
			t.Fatalf("the whole turn:\n%s", a.Text)
		}
		after := e.trace(g.ID)
		if after[0] != before[0]+1 || after[1] != before[1]+5 {
			t.Fatalf("the whole turn left version, actions %v, was %v", after, before)
		}
	})
}

// TestAttackBatchReplyStaleNumbers: the numbers of an email name its
// list at its version; once the player moved on the web (a move the list
// had), a reply with the email's numbers is refused and moves nothing,
// and so is a reply numbering lines the list does not have.
func TestAttackBatchReplyStaleNumbers(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	u := e.awaited(id, ana, ben)
	em := e.latest(u)
	lines := emailLines(em.Text)
	if len(lines) < 2 {
		t.Fatalf("the decision email's lines: %v\n%s", lines, em.Text)
	}
	ctx := context.Background()
	for _, body := range []string{"0", "99999999999999999999", fmt.Sprint(len(lines) + 1), "1\n1", "1e3", "#1"} {
		before := e.trace(id)
		raw := replyTo(u, em, body).raw()
		res, err := e.in.Receive(ctx, inbound.Envelope{MailFrom: u.Email, HasReturnPath: true, Rcpt: []string{em.ReplyTo}, Raw: raw})
		if err != nil || res.Outcome != inbound.Refused {
			t.Errorf("%q: %+v %v", body, res, err)
		}
		e.settle()
		if after := e.trace(id); after[0] != before[0] || after[1] != before[1] || after[3] != before[3]+1 {
			t.Errorf("%q: version, actions, events, email jobs %v, was %v", body, after, before)
		}
	}
	// The player moves on the web: one of the moves the email listed.
	v := e.version(id)
	var seat int
	var first engine.Action
	if err := e.play.Read(ctx, id, u.ID, func(_ *models.Game, s int, st *engine.State) error {
		seat = s
		first = engine.Numbered(st.View(s).Moves(engine.Legal(st, s)))[0].Action
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	res, err := e.play.Submit(ctx, id, u.ID, &v, []engine.Action{first}, nil)
	if err != nil {
		t.Fatalf("seat %d: %v", seat, err)
	}
	res.Done()
	e.settle()
	before := e.trace(id)
	raw := replyTo(u, em, "1\nend").raw()
	r, err := e.in.Receive(ctx, inbound.Envelope{MailFrom: u.Email, HasReturnPath: true, Rcpt: []string{em.ReplyTo}, Raw: raw})
	if err != nil || r.Outcome != inbound.Refused {
		t.Fatalf("a reply to a list of an older version: %+v %v", r, err)
	}
	e.settle()
	if after := e.trace(id); after[0] != before[0] || after[1] != before[1] || after[2] != before[2] {
		t.Fatalf("the stale reply left version, actions, events, jobs %v, was %v", after, before)
	}
}

// TestAttackBatchRepliesAtOnce: four different replies to one decision
// email (four Message-IDs: a user who sent, edited and sent again) and a
// batch of commands on the API, all at once for the same version: one is
// played, the others refused, each reply answered once.
func TestAttackBatchRepliesAtOnce(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		e := newEnv(t, d)
		ana, ben := e.user("ana"), e.user("ben")
		g := e.scenarioGame(t, batchScenario, ana, ben)
		em := e.general(g.ID, ana, 0)
		v := e.version(g.ID)
		bodies := []string{"play frontend, play rapid, play open, claim landing, end", "play rapid\nend", "end", "play open source\nplay frontend\nend"}
		var raws [][]byte
		for i, b := range bodies {
			m := replyTo(ana, em, b)
			m.MessageID = fmt.Sprintf("at-once-%d-%d@example.com", i, time.Now().UnixNano())
			raws = append(raws, m.raw())
		}
		var wg sync.WaitGroup
		outcomes := make([]inbound.Outcome, len(raws))
		errs := make([]error, len(raws)+1)
		for i, raw := range raws {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := e.in.Receive(context.Background(), inbound.Envelope{MailFrom: ana.Email, HasReturnPath: true, Rcpt: []string{em.ReplyTo}, Raw: raw})
				outcomes[i], errs[i] = res.Outcome, err
			}()
		}
		wg.Add(1)
		apiApplied := false
		go func() {
			defer wg.Done()
			res, _, err := e.play.SubmitCommands(context.Background(), g.ID, ana.ID, v, []string{"play frontend", "end"}, nil)
			if err == nil {
				apiApplied = true
				res.Done()
			} else if _, ok := err.(*play.StaleVersionError); !ok {
				errs[len(raws)] = err
			}
		}()
		wg.Wait()
		e.settle()
		played := 0
		if apiApplied {
			played++
		}
		for i := range raws {
			if errs[i] != nil {
				t.Fatalf("reply %d: %v", i, errs[i])
			}
			switch outcomes[i] {
			case inbound.Applied:
				played++
			case inbound.Refused:
			default:
				t.Errorf("reply %d: %s", i, outcomes[i])
			}
			if n := e.answersTo(messageIDOf(raws[i])); n != 1 {
				t.Errorf("reply %d: %d answers", i, n)
			}
		}
		if errs[len(raws)] != nil {
			t.Fatalf("the API batch: %v", errs[len(raws)])
		}
		if played != 1 || e.version(g.ID) != v+1 {
			t.Fatalf("%d of the replies and batch played (%v, API %v); version %d -> %d", played, outcomes, apiApplied, v, e.version(g.ID))
		}
	})
}
