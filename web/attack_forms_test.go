package web_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/ssetest"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
	"github.com/gin-gonic/gin"
)

// The attacks on the game-play forms of the pages: the board's moves,
// the action links' confirmations, and the forms that join, leave,
// start, cancel, decline, resign, vote and ask for a rematch, sent as a
// careless user, a flaky network and an attacker send them. (Standing
// answers, table talk, sessions, accounts and the lobby's invitations
// have attack files of their own.)

// formsTurn is a position of ana's turn, in her Action phase: Tools to
// play (one copy each), a Monster to place, and bob holding an interrupt
// that answers a placement.
const formsTurn = `
name: ana's turn
players:
  - name: ana
    hand: [rapid-prototype, data-lake, qubo-junior, frontend-framework]
    deck: [proof-of-concept, design-system, open-source-library]
  - name: bob
    hand: [kubernetes-cluster, hiring-freeze]
    deck: [bi-suite, analytics-sdk, super-app]
market: [spam-filter, todo-app, landing-page]
challenge_deck: [sales-dashboard, booking-system]
`

// formsDump is every row of every table of the site's store, a line each,
// sorted: what a request changed anywhere shows as a difference.
func (s *site) formsDump() string {
	s.t.Helper()
	db, err := s.store.SQLDB()
	if err != nil {
		s.t.Fatal(err)
	}
	q := `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
	if s.store.Dialect() == models.Postgres {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	}
	var tables []string
	rows, err := db.Query(q)
	if err != nil {
		s.t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			s.t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	sort.Strings(tables)
	var out []string
	for _, table := range tables {
		out = append(out, s.formsRows(db, table)...)
	}
	return strings.Join(out, "\n")
}

// formsRows is every row of table, a line each, sorted.
func (s *site) formsRows(db *sql.DB, table string) []string {
	s.t.Helper()
	rows, err := db.Query(`SELECT * FROM "` + table + `"`)
	if err != nil {
		s.t.Fatalf("%s: %v", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			s.t.Fatal(err)
		}
		line := table + ":"
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			line += fmt.Sprintf(" %s=%v", cols[i], v)
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return out
}

// formsDiff is the first line of two dumps that differs, to say what a
// request changed.
func formsDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(x), len(y)) {
		var l, r string
		if i < len(x) {
			l = x[i]
		}
		if i < len(y) {
			r = y[i]
		}
		if l != r {
			return fmt.Sprintf("before: %.300s\n after: %.300s", l, r)
		}
	}
	return ""
}

// formsSend sends a request of method to path as c, with body of
// contentType ("" for none) and the Origin and Sec-Fetch-Site headers
// given ("" leaves one out).
func (c *client) formsSend(method, path, contentType, body, origin, fetchSite string) resp {
	c.s.t.Helper()
	req, err := http.NewRequest(method, c.abs(path), strings.NewReader(body))
	if err != nil {
		c.s.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if fetchSite != "" {
		req.Header.Set("Sec-Fetch-Site", fetchSite)
		req.Header.Set("Sec-Fetch-Mode", map[bool]string{true: "navigate", false: "cors"}[method == http.MethodGet])
	}
	return c.do(req)
}

// formsEncodings are the three encodings a form of another site can
// send without asking (no CORS preflight), each as a body and its type.
func formsEncodings(form url.Values) [][2]string {
	var mp strings.Builder
	w := multipart.NewWriter(&mp)
	for k, vs := range form {
		for _, v := range vs {
			w.WriteField(k, v)
		}
	}
	w.Close()
	var plain strings.Builder
	for k, vs := range form {
		for _, v := range vs {
			plain.WriteString(k + "=" + v + "\r\n")
		}
	}
	return [][2]string{{"application/x-www-form-urlencoded", form.Encode()}, {w.FormDataContentType(), mp.String()},
		{"text/plain", plain.String()}}
}

// formsOpen has u open a game through the API with settings (2 fast
// players with the running-a-startup pack, unless settings say otherwise)
// and returns its id.
func (s *site) formsOpen(u apiUser, settings map[string]any) int64 {
	s.t.Helper()
	body := map[string]any{"players": 2, "mode": "fast", "deck": map[string]string{"prebuilt": "running-a-startup"},
		"turn_deadline_seconds": 86400}
	for k, v := range settings {
		body[k] = v
	}
	var g struct {
		ID int64 `json:"id"`
	}
	s.apiCall(http.MethodPost, "/v1/games", u.Access, body, &g)
	return g.ID
}

// formsJoin has u join game id through the API.
func (s *site) formsJoin(u apiUser, id int64) {
	s.t.Helper()
	s.apiCall(http.MethodPost, "/v1/games/"+itoa(id)+"/join", u.Access, map[string]any{"deck": map[string]string{"prebuilt": "running-a-startup"}}, nil)
}

// formsVersion is game id's version.
func (s *site) formsVersion(id int64) int64 {
	s.t.Helper()
	g, err := s.store.GameNoState(context.Background(), id)
	if err != nil {
		s.t.Fatal(err)
	}
	return g.Version
}

// TestAttackFormsCrossSite walks every POST route the house's router has
// for the pages (read from the router, not listed by hand) while ana is
// signed in, with a form that the route takes from the site itself, sent
// as a browser sends a form of another site: Sec-Fetch-Site cross-site
// or same-site (a sibling subdomain) with a foreign Origin, an older
// browser's foreign Origin alone, and a sandboxed frame's Origin "null";
// URL-encoded, multipart and text/plain. Each is refused (403, the page
// says so, no cookie set) and changes no row of any table; a cross-site
// GET of each of those addresses (a link or an image of another site)
// changes nothing either. Then the same forms sent from the site itself
// change what they change, or the walk would have proved nothing; ana is
// still signed in after it all.
func TestAttackFormsCrossSite(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana := s.client()
		ana.register("ana", "ana password")
		s.client().register("bob", "bob password")
		s.client().register("cyd", "cyd password")
		apiAna, apiBob := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")

		// A game for each form, in the state where the form does
		// something.
		turn := s.startGame(apiAna, apiBob)
		s.stage(t, turn, formsTurn)
		linked := s.startGame(apiAna, apiBob)
		s.stage(t, linked, formsTurn)
		link, _, _, _ := s.actionLink(linked, "End your turn")
		lq, _ := url.ParseQuery(strings.SplitN(mustPathOf(t, link), "?", 2)[1])
		joinable := s.formsOpen(apiBob, map[string]any{"public": true})
		ready := s.formsOpen(apiAna, map[string]any{"invite": []string{"bob"}})
		s.formsJoin(apiBob, ready)
		inviting := s.formsOpen(apiAna, map[string]any{"players": 3})
		cancelable := s.formsOpen(apiAna, nil)
		leavable := s.formsOpen(apiBob, map[string]any{"players": 3, "public": true})
		s.formsJoin(apiAna, leavable)
		declinable := s.formsOpen(apiBob, map[string]any{"invite": []string{"ana"}})
		over := s.startGame(apiAna, apiBob)
		if _, err := s.play.Resign(context.Background(), over, apiBob.ID, nil); err != nil {
			t.Fatal(err)
		}

		type target struct {
			id    int64 // the game in the path
			form  url.Values
			works bool // sent from the site itself, it changes something
		}
		key := func(k string) url.Values { return url.Values{"key": {"csrf-" + k}} }
		targets := map[string]target{
			"/games/:id/play":          {turn, url.Values{"v": {itoa(s.formsVersion(turn))}, "key": {"csrf-play"}, "type": {"end_turn"}}, true},
			"/games/:id/act":           {linked, url.Values{"t": {lq.Get("t")}, "v": {lq.Get("v")}, "n": {lq.Get("n")}, "d": {lq.Get("d")}}, true},
			"/games/:id/messages":      {turn, url.Values{"text": {"sent from evil.example"}}, true},
			"/games/:id/messages/mute": {turn, url.Values{"muted": {"on"}}, true},
			"/games/:id/join":          {joinable, url.Values{"key": {"csrf-join"}, "deck": {"prebuilt:running-a-startup"}}, true},
			"/games/:id/start":         {ready, key("start"), true},
			"/games/:id/invite":        {inviting, url.Values{"email": {"carl@example.com"}}, true},
			"/games/:id/cancel":        {cancelable, key("cancel"), true},
			"/games/:id/leave":         {leavable, key("leave"), true},
			"/games/:id/decline":       {declinable, key("decline"), true},
			"/games/:id/rematch":       {over, key("rematch"), true},
			"/games/:id/reclaim":       {turn, key("reclaim"), false},
			"/games":                   {0, mustForm(t, ana.get("/new-game").mustSee(t, 200).Body, "Open the game").Fields, true},
			"/settings/time-zone":      {0, url.Values{"time_zone": {"Asia/Tokyo"}}, true},
			"/settings/tokens":         {0, url.Values{"key": {"csrf-token"}, "name": {"evil"}, "scope": {"read"}}, true},
			"/login":                   {0, url.Values{"username": {"ana"}, "password": {"ana password"}, "next": {"/"}}, true},
			"/register": {0, url.Values{"username": {"eve"}, "email": {"eve@example.com"}, "password": {"eve password"},
				"time_zone": {"UTC"}}, false},
			"/settings/delete": {0, url.Values{"password": {"ana password"}, "confirm": {"yes"}}, false},
		}

		house := s.handler.(*gin.Engine)
		var posts []string
		for _, r := range house.Routes() {
			if r.Method == http.MethodPost && !strings.HasPrefix(r.Path, "/v1/") {
				posts = append(posts, r.Path)
			}
		}
		sort.Strings(posts)
		if len(posts) < 40 {
			t.Fatalf("the router has %d POST routes for the pages: %q", len(posts), posts)
		}
		for route := range targets {
			if !strings.Contains(strings.Join(posts, " ")+" ", route+" ") {
				t.Fatalf("the router has no route %s any more: %q", route, posts)
			}
		}
		pathOf := func(route string) string {
			id := targets[route].id
			if id == 0 {
				id = 1
			}
			return strings.ReplaceAll(route, ":id", itoa(id))
		}
		formOf := func(route string) url.Values {
			if f, ok := targets[route]; ok {
				return f.form
			}
			return url.Values{"key": {"csrf-other"}, "confirm": {"yes"}, "password": {"ana password"}}
		}

		variants := []struct{ origin, site string }{
			{"https://evil.example", "cross-site"},
			{"https://evil.example", "same-site"},
			{"https://evil.example", ""},
			{"null", "cross-site"},
			{"null", ""},
		}
		before := s.formsDump()
		for _, route := range posts {
			path := pathOf(route)
			for i, v := range variants {
				enc := formsEncodings(formOf(route))[i%3]
				r := ana.formsSend(http.MethodPost, path, enc[0], enc[1], v.origin, v.site)
				if r.Status != http.StatusForbidden || !strings.Contains(r.Body, "Request refused") {
					t.Errorf("POST %s from Origin %q, Sec-Fetch-Site %q, as %s: %d\n%s", path, v.origin, v.site, enc[0], r.Status, clip(r.Body))
				}
				if c := r.Header.Values("Set-Cookie"); len(c) > 0 {
					t.Errorf("POST %s from another site set cookies: %q", path, c)
				}
			}
			ana.formsSend(http.MethodGet, path+"?"+formOf(route).Encode(), "", "", "", "cross-site")
			if after := s.formsDump(); after != before {
				t.Fatalf("the posts to %s from another site changed the store:\n%s", path, formsDiff(before, after))
			}
		}
		if !ana.signedIn() {
			t.Fatal("the posts from another site signed ana out")
		}

		// The same forms from the site itself do what they do: the
		// refusals above kept something from happening.
		var works []string
		for route, f := range targets {
			if f.works {
				works = append(works, route)
			}
		}
		sort.Strings(works)
		for _, route := range works {
			was := s.formsDump()
			r := ana.post(pathOf(route), formOf(route))
			if r.Status >= 400 {
				t.Errorf("POST %s from the site itself: %d\n%s", pathOf(route), r.Status, clip(r.Body))
			}
			if s.formsDump() == was {
				t.Errorf("POST %s from the site itself changed nothing: the walk tried a form that does nothing", pathOf(route))
			}
		}
		t.Logf("%d POST routes, %d of them checked to act from the site", len(posts), len(works))
	})
}

// formsEvents counts game id's recorded events by kind, and by kind
// and card ("played rapid-prototype").
func (s *site) formsEvents(id int64) map[string]int {
	s.t.Helper()
	recs, err := s.store.EventsAfter(context.Background(), id, 0, 100000)
	if err != nil {
		s.t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range recs {
		var e engine.Event
		if err := json.Unmarshal([]byte(r.Body), &e); err != nil {
			s.t.Fatal(err)
		}
		out[e.Kind]++
		if e.Card != "" {
			out[e.Kind+" "+e.Card]++
		}
	}
	return out
}

// formsAtOnce sends form f as c n times at once and returns the answers.
// With gated, on Postgres, the copies queue behind a hold of game id's
// lock until all of them wait for it, and then run one after the other,
// each finding what the one before it did.
func (c *client) formsAtOnce(id int64, n int, gated bool, f pageForm) []resp {
	c.s.t.Helper()
	var gate *modelstest.Gate
	if gated {
		gate = modelstest.HoldGame(c.s.t, c.s.store, id)
	}
	out := make([]resp, n)
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = c.send(f)
		}()
	}
	if gate != nil {
		gate.Wait(n)
		gate.Release()
	}
	wg.Wait()
	return out
}

// formsSameAnswer fails unless every answer is a 303 to one place, which
// it returns.
func formsSameAnswer(t *testing.T, what string, out []resp) string {
	t.Helper()
	loc := out[0].Header.Get("Location")
	for i, r := range out {
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != loc {
			t.Fatalf("%s, copy %d of %d: %d to %q (the first: %d to %q)\n%s", what, i, len(out), r.Status, r.Header.Get("Location"),
				out[0].Status, loc, clip(r.Body))
		}
	}
	return loc
}

// TestAttackFormsSentAgain: the board's and the lobby's forms sent again,
// as a double click, a retry after an answer that never came, and eight
// copies at once (queued behind the game's lock on Postgres, so that each
// finds the change of the one before). Each change is made once: a Tool
// is played once, a seat taken once, a vote counted once, one game
// started, cancelled, left, declined, resigned, one rematch made; and
// every copy is answered as the first was, with a redirect to the same
// page. Copies of a form without a key (one written by hand) change the
// game once too, and the others are told that the game moved on: none
// is a server error.
func TestAttackFormsSentAgain(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana, bob := s.client(), s.client()
		ana.register("ana", "ana password")
		bob.register("bob", "bob password")
		s.client().register("cyd", "cyd password")
		apiAna, apiBob, apiCyd := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password"), s.apiLogin("cyd", "cyd password")
		id := s.startGame(apiAna, apiBob)
		s.stage(t, id, formsTurn)
		page := ana.get(gamePath(id)).mustSee(t, 200, "Your move").Body

		// A retry after an answer that never came: the first copy gives
		// up at once, whether or not the server applied it.
		v := s.formsVersion(id)
		tool := mustForm(t, page, "Play Rapid Prototype")
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ana.abs(tool.Action), strings.NewReader(tool.Fields.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", s.url)
		if r, err := ana.http.Do(req); err == nil {
			r.Body.Close()
		}
		cancel()
		first := ana.send(tool)
		loc := first.mustRedirect(t, gamePath(id))
		// The double click.
		for range 2 {
			if again := ana.send(tool); again.Status != http.StatusSeeOther || again.Header.Get("Location") != loc {
				t.Fatalf("the Tool's form sent again: %d to %q, the first went to %q\n%s", again.Status, again.Header.Get("Location"), loc, clip(again.Body))
			}
		}
		if n := s.formsEvents(id)["played rapid-prototype"]; n != 1 || s.formsVersion(id) != v+1 {
			t.Fatalf("one Tool's form sent four times: played %d times, version %d to %d", n, v, s.formsVersion(id))
		}

		// Eight copies at once.
		page = ana.get(gamePath(id)).mustSee(t, 200, "Your move").Body
		v = s.formsVersion(id)
		formsSameAnswer(t, "Play Data Lake", ana.formsAtOnce(id, 8, true, mustForm(t, page, "Play Data Lake")))
		if n := s.formsEvents(id)["played data-lake"]; n != 1 || s.formsVersion(id) != v+1 {
			t.Fatalf("eight copies at once: Data Lake played %d times, version %d to %d", n, v, s.formsVersion(id))
		}

		// Eight copies of a form without its key: one plays, the others
		// are told the game moved on.
		page = ana.get(gamePath(id)).mustSee(t, 200, "Your move").Body
		bare := mustForm(t, page, "Play Frontend Framework")
		bare.Fields.Del("key")
		played := 0
		for i, r := range ana.formsAtOnce(id, 8, true, bare) {
			switch {
			case r.Status == http.StatusSeeOther:
				played++
			case r.Status == http.StatusConflict && strings.Contains(r.Body, "The game moved on"):
			default:
				t.Errorf("copy %d of a form without its key: %d\n%s", i, r.Status, clip(r.Body))
			}
		}
		if n := s.formsEvents(id)["played frontend-framework"]; n != 1 || played != 1 {
			t.Fatalf("eight copies of a form without its key: %d answered as played, played %d times", played, n)
		}

		// The vote to end, then the resignation, eight at once each.
		page = ana.get(gamePath(id)).Body
		formsSameAnswer(t, "the vote", ana.formsAtOnce(id, 8, true, mustForm(t, page, "Vote to end")))
		if n := s.formsEvents(id)[engine.KindVotedEnd]; n != 1 {
			t.Fatalf("eight votes at once were counted %d times", n)
		}
		page = ana.get(gamePath(id)).mustSee(t, 200, "You voted to end the game").Body
		resign := mustForm(t, page, "Resign")
		resign.Fields.Set("confirm", "yes")
		formsSameAnswer(t, "the resignation", ana.formsAtOnce(id, 8, true, resign))
		if n := s.formsEvents(id)[engine.KindResigned]; n != 1 {
			t.Fatalf("eight resignations at once: %d resigned events", n)
		}
		ana.get(gamePath(id)).mustSee(t, 200, "Final scores")

		// A rematch asked eight times at once: one game.
		games := modelstest.Count(s.t, s.store, "SELECT COUNT(*) FROM games")
		rematch := mustForm(t, ana.get(gamePath(id)).Body, "Rematch")
		loc = formsSameAnswer(t, "the rematch", ana.formsAtOnce(id, 8, false, rematch))
		if n := modelstest.Count(s.t, s.store, "SELECT COUNT(*) FROM games"); n != games+1 {
			t.Fatalf("eight rematches at once made %d games", n-games)
		}
		ana.get(loc).mustSee(t, 200, "Waiting for players")

		// The lobby's forms: a seat taken, left; a game started; one
		// cancelled; an invitation declined; eight at once each.
		open := s.formsOpen(apiBob, map[string]any{"players": 3, "public": true})
		join := mustForm(t, ana.get(gamePath(open)).mustSee(t, 200, "Take a seat").Body, "Take a seat")
		formsSameAnswer(t, "taking a seat", ana.formsAtOnce(open, 8, true, join))
		g, _ := s.store.GameNoState(context.Background(), open)
		if n := seatedCount(g, "ana"); n != 1 {
			t.Fatalf("eight copies of the join form seated ana %d times: %+v", n, g.Seats)
		}
		formsSameAnswer(t, "leaving", ana.formsAtOnce(open, 8, true, mustForm(t, ana.get(gamePath(open)).Body, "Leave the game")))
		g, _ = s.store.GameNoState(context.Background(), open)
		if n := seatedCount(g, "ana"); n != 0 || g.Status != models.StatusOpen {
			t.Fatalf("after eight copies of the leave form: ana sits %d times, the game is %s", n, g.Status)
		}

		ready := s.formsOpen(apiAna, map[string]any{"invite": []string{"bob"}})
		s.formsJoin(apiBob, ready)
		formsSameAnswer(t, "the start", ana.formsAtOnce(ready, 8, true, mustForm(t, ana.get(gamePath(ready)).Body, "Start the game")))
		if n := s.formsEvents(ready)[engine.KindGameStarted]; n != 1 {
			t.Fatalf("eight starts at once: %d game_started events", n)
		}

		doomed := s.formsOpen(apiAna, map[string]any{"players": 3, "invite": []string{"cyd"}})
		formsSameAnswer(t, "the cancel", ana.formsAtOnce(doomed, 8, true, mustForm(t, ana.get(gamePath(doomed)).Body, "Cancel the game")))
		if g, _ := s.store.GameNoState(context.Background(), doomed); g.Status != models.StatusCancelled {
			t.Fatalf("after eight cancels the game is %s", g.Status)
		}

		invited := s.formsOpen(apiCyd, map[string]any{"players": 3, "invite": []string{"ana"}})
		formsSameAnswer(t, "declining", ana.formsAtOnce(invited, 8, true, mustForm(t, ana.get(gamePath(invited)).Body, "Decline")))
		g, _ = s.store.GameNoState(context.Background(), invited)
		if n := seatedCount(g, "ana"); n != 0 || strings.Contains(fmt.Sprint(g.Seats), "ana") {
			t.Fatalf("after eight declines: %+v", g.Seats)
		}
	})
}

// formsWindow is a position of ana's turn in which placing Qubo opens an
// interrupt window for every other seat: each holds a Hiring Freeze,
// which cancels a placement. names are the seats after ana.
func formsWindow(names ...string) string {
	doc := `
name: a placement to answer
players:
  - name: ana
    hand: [qubo-junior, rapid-prototype]
    deck: [proof-of-concept, design-system]
`
	for _, n := range names {
		doc += `  - name: ` + n + `
    hand: [hiring-freeze, kubernetes-cluster]
    deck: [bi-suite, analytics-sdk]
`
	}
	return doc + `market: [spam-filter, todo-app, landing-page]
challenge_deck: [sales-dashboard, booking-system]
`
}

// formsSubmit has user uid send a through the play path at any version.
func (s *site) formsSubmit(id, uid int64, a engine.Action) {
	s.t.Helper()
	if _, err := s.play.Submit(context.Background(), id, uid, nil, []engine.Action{a}, nil); err != nil {
		s.t.Fatalf("%+v: %v", a, err)
	}
}

// formsAnswer is seat's answer to its open prompt that picks the option
// whose text starts with prefix.
func (s *site) formsAnswer(id int64, seat int, prefix string) engine.Action {
	s.t.Helper()
	_, st := s.gameState(id)
	for _, m := range engine.Moves(st, seat) {
		if m.Type != engine.ActAnswer {
			continue
		}
		for _, o := range m.Options {
			if strings.HasPrefix(o.Text, prefix) {
				return engine.Action{Type: engine.ActAnswer, Prompt: m.Prompt, Choices: []string{o.ID}}
			}
		}
	}
	s.t.Fatalf("seat %d has no option %q…", seat, prefix)
	return engine.Action{}
}

// formsAnswers are the forms of a board's prompt of one choice: its
// pass, and its other options.
func formsAnswers(t *testing.T, body string) (pass pageForm, others []pageForm) {
	t.Helper()
	for _, f := range formsOf(t, body) {
		switch {
		case f.Fields.Get("type") != "answer":
		case f.Fields.Get("choice") == engine.Pass:
			pass = f
		default:
			others = append(others, f)
		}
	}
	if pass.Action == "" || len(others) == 0 {
		t.Fatalf("no prompt with a pass and an option on the board:\n%s", clip(body))
	}
	return pass, others
}

// formsBetween is what body holds between the first start and the end
// after it ("" without start).
func formsBetween(body, start, end string) string {
	_, rest, ok := strings.Cut(body, start)
	if !ok {
		return ""
	}
	in, _, _ := strings.Cut(rest, end)
	return in
}

// formsNews is the banner of what happened since the reader last looked
// ("" for none).
func formsNews(body string) string { return formsBetween(body, `<section id="news"`, "</section>") }

// formsProblem is what the page says went wrong, at its top ("" for
// nothing).
func formsProblem(body string) string {
	return formsBetween(body, `<p class="problem" role="alert">`, "</p>")
}

// formsLog is the board's log of what happened.
func formsLog(body string) string { return formsBetween(body, `<section id="log"`, "</section>") }

// formsHand is the card ids of seat's hand, sorted.
func (s *site) formsHand(id int64, seat int) string {
	s.t.Helper()
	_, st := s.gameState(id)
	return cardIDs(st.Players[seat].Hand)
}

// formsBin is the card ids of seat's Recycle Bin, sorted.
func (s *site) formsBin(id int64, seat int) string {
	s.t.Helper()
	_, st := s.gameState(id)
	return cardIDs(st.Players[seat].Bin)
}

// cardIDs is the card ids of pile, sorted, between spaces.
func cardIDs(pile []engine.Inst) string {
	out := make([]string, 0, len(pile))
	for _, in := range pile {
		out = append(out, in.Card)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// TestAttackFormsStale: forms of a page the game has left. In a game of
// three, bob reads his board while an interrupt window waits for him and
// cyd, and cyd plays her Hiring Freeze: the window is sealed, so bob's
// pass from the old page still answers it (an answer to a prompt still
// open), and then his own Hiring Freeze from that page, a decision no
// longer open, is refused (409) with the game as it is, whose log says
// what cyd did; bob keeps his card. In a game of two, bob's answers to a
// window that timed out meanwhile are refused the same way, the news
// saying time ran out; ana's move from a page older than bob's vote to
// end is refused with news of the vote; her move, vote and resignation
// sent after bob resigned are refused with a page that says the game is
// over. The lobby's forms of a page the game has left (a seat taken by
// someone else meanwhile, a start after a player left, a leave or a
// cancel after the start) are refused with what changed. Nothing refused
// is applied, and none is a server error.
func TestAttackFormsStale(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana, bob := s.client(), s.client()
		ana.register("ana", "ana password")
		bob.register("bob", "bob password")
		s.client().register("cyd", "cyd password")
		s.client().register("dan", "dan password")
		apiAna, apiBob, apiCyd := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password"), s.apiLogin("cyd", "cyd password")
		apiDan := s.apiLogin("dan", "dan password")
		ctx := context.Background()

		// Three players: cyd closes the window bob's page shows.
		three := s.formsOpen(apiAna, map[string]any{"players": 3, "invite": []string{"bob", "cyd"}})
		s.formsJoin(apiBob, three)
		s.formsJoin(apiCyd, three)
		s.apiCall(http.MethodPost, "/v1/games/"+itoa(three)+"/start", apiAna.Access, nil, nil)
		s.stage(t, three, formsWindow("bob", "cyd"))
		s.formsSubmit(three, apiAna.ID, engine.Action{Type: engine.ActPlace, Card: handCard(t, s, three, 0, "qubo-junior")})
		old := bob.get(gamePath(three)).mustSee(t, 200, "Your move").Body
		pass, plays := formsAnswers(t, old)
		s.formsSubmit(three, apiCyd.ID, s.formsAnswer(three, 2, "Play Hiring Freeze"))
		// The window is sealed: bob's prompt is still open, and his pass
		// from the old page answers it (an answer to an open prompt does
		// not depend on what the others did).
		bob.send(pass).mustRedirect(t, gamePath(three))
		v, hand := s.formsVersion(three), s.formsHand(three, 1)
		// His Hiring Freeze, from the same old page, answers nothing now:
		// the page says so, and its log what cyd did.
		for _, f := range plays {
			r := bob.send(f).mustSee(t, http.StatusConflict, "The game moved on")
			if log := formsLog(r.Body); !strings.Contains(log, "cyd&#39;s Hiring Freeze takes effect") || !strings.Contains(log, "Hiring Freeze cancels") {
				t.Errorf("bob's refused %q does not show what cyd did: log %q", f.Button, log)
			}
		}
		if s.formsVersion(three) != v || s.formsHand(three, 1) != hand || !strings.Contains(hand, "hiring-freeze") {
			t.Fatalf("bob's forms of a closed window changed the game: version %d to %d, hand %q to %q", v, s.formsVersion(three),
				hand, s.formsHand(three, 1))
		}

		// Two players: the window times out before bob answers.
		two := s.startGame(apiAna, apiBob)
		s.stage(t, two, formsWindow("bob"))
		s.formsSubmit(two, apiAna.ID, engine.Action{Type: engine.ActPlace, Card: handCard(t, s, two, 0, "qubo-junior")})
		old = bob.get(gamePath(two)).mustSee(t, 200, "Your move").Body
		pass, plays = formsAnswers(t, old)
		s.clock.Add(72 * time.Hour)
		if ok, err := s.play.Timeout(ctx, two); err != nil || !ok {
			t.Fatalf("timeout: %v, %v", ok, err)
		}
		v, hand = s.formsVersion(two), s.formsHand(two, 1)
		apiAna, apiBob, apiDan = s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password"), s.apiLogin("dan", "dan password")
		for _, f := range []pageForm{pass, plays[0]} {
			r := bob.send(f).mustSee(t, http.StatusConflict, "The game moved on")
			if news := formsNews(r.Body); !strings.Contains(news, "Time ran out") {
				t.Errorf("bob's %q after the timeout does not say time ran out: news %q", f.Button, news)
			}
		}
		if s.formsVersion(two) != v || s.formsHand(two, 1) != hand {
			t.Fatal("bob's forms of a window that timed out changed the game")
		}

		// Bob votes to end while ana's page shows her turn: her move
		// from it is refused, with what bob did.
		page := ana.get(gamePath(two)).mustSee(t, 200, "Your move").Body
		tool := mustForm(t, page, "Play Rapid Prototype")
		bob.send(mustForm(t, bob.get(gamePath(two)).Body, "Vote to end")).mustRedirect(t, gamePath(two))
		v, hand = s.formsVersion(two), s.formsHand(two, 0)
		r := ana.send(tool).mustSee(t, http.StatusConflict, "The game moved on", "Play Rapid Prototype")
		if news := formsNews(r.Body); !strings.Contains(news, "bob voted to end") {
			t.Errorf("ana's move after bob's vote does not say he voted: news %q", news)
		}
		if s.formsVersion(two) != v || s.formsHand(two, 0) != hand {
			t.Fatal("ana's move from a page older than bob's vote changed the game")
		}

		// The game ends while ana's page shows her turn.
		page = ana.get(gamePath(two)).mustSee(t, 200, "Your move").Body
		end, vote, resign := mustForm(t, page, "End your turn"), mustForm(t, page, "Vote to end"), mustForm(t, page, "Resign")
		resign.Fields.Set("confirm", "yes")
		bob.send(mustForm(t, bob.get(gamePath(two)).Body, "Resign"), "confirm", "yes").mustRedirect(t, gamePath(two))
		v = s.formsVersion(two)
		events := s.formsEvents(two)
		for _, f := range []pageForm{end, vote, resign} {
			r := ana.send(f)
			if r.Status < 400 || r.Status >= 500 || !strings.Contains(formsProblem(r.Body), "over") {
				t.Errorf("ana's %q after the game ended: %d, %q\n%s", f.Button, r.Status, formsProblem(r.Body), clip(r.Body))
			}
		}
		if s.formsVersion(two) != v || fmt.Sprint(s.formsEvents(two)) != fmt.Sprint(events) {
			t.Fatal("ana's forms after the end changed the game")
		}

		// The lobby: a seat taken meanwhile.
		open := s.formsOpen(apiBob, map[string]any{"public": true})
		join := mustForm(t, ana.get(gamePath(open)).Body, "Take a seat")
		s.formsJoin(apiDan, open)
		r = ana.send(join)
		if r.Status < 400 || r.Status >= 500 || formsProblem(r.Body) == "" {
			t.Errorf("ana takes a seat dan took meanwhile: %d, %q\n%s", r.Status, formsProblem(r.Body), clip(r.Body))
		}
		if g, _ := s.store.GameNoState(ctx, open); seatedCount(g, "ana") != 0 {
			t.Fatal("ana sits in a full game")
		}
		// A start after bob left.
		ready := s.formsOpen(apiAna, map[string]any{"invite": []string{"bob"}})
		s.formsJoin(apiBob, ready)
		start := mustForm(t, ana.get(gamePath(ready)).Body, "Start the game")
		s.apiCall(http.MethodPost, "/v1/games/"+itoa(ready)+"/leave", apiBob.Access, nil, nil)
		r = ana.send(start)
		if r.Status < 400 || r.Status >= 500 || formsProblem(r.Body) == "" {
			t.Errorf("ana starts a game bob left meanwhile: %d, %q\n%s", r.Status, formsProblem(r.Body), clip(r.Body))
		}
		if g, _ := s.store.GameNoState(ctx, ready); g.Status != models.StatusOpen {
			t.Fatalf("the game bob left is %s", g.Status)
		}
		// A leave and a cancel after the start.
		started := s.formsOpen(apiAna, map[string]any{"players": 3, "invite": []string{"bob"}, "public": true})
		s.formsJoin(apiBob, started)
		s.formsJoin(apiDan, started)
		cancel := mustForm(t, ana.get(gamePath(started)).Body, "Cancel the game")
		leave := mustForm(t, bob.get(gamePath(started)).Body, "Leave the game")
		s.apiCall(http.MethodPost, "/v1/games/"+itoa(started)+"/start", apiAna.Access, nil, nil)
		v = s.formsVersion(started)
		for who, f := range map[*client]pageForm{ana: cancel, bob: leave} {
			r := who.send(f)
			if r.Status < 400 || r.Status >= 500 || !strings.Contains(formsProblem(r.Body), "started") {
				t.Errorf("%q after the start: %d, %q\n%s", f.Button, r.Status, formsProblem(r.Body), clip(r.Body))
			}
		}
		if g, _ := s.store.GameNoState(ctx, started); g.Status != models.StatusActive || g.Version != v {
			t.Fatalf("a cancel or a leave after the start left the game %s at version %d (was %d)", g.Status, g.Version, v)
		}
	})
}

// formsInst is the instance id of the first card of a zone of game id:
// seat's "hand" or "deck", or the "challenges" deck.
func (s *site) formsInst(id int64, seat int, zone string) string {
	s.t.Helper()
	_, st := s.gameState(id)
	var pile []engine.Inst
	switch zone {
	case "hand":
		pile = st.Players[seat].Hand
	case "deck":
		pile = st.Players[seat].Deck
	case "challenges":
		pile = st.ChallengeDeck
	}
	if len(pile) == 0 {
		s.t.Fatalf("no card in %s of seat %d", zone, seat)
	}
	return pile[0].ID
}

// TestAttackFormsForged: the board's move form, forged. Sent to another
// game's path (one a version ahead, one ana has no seat in, one that is
// not there, paths that are no game), with a card of bob's hand, of her
// own deck or of the Challenge Deck, an answer to bob's prompt, a type no
// page sends; with a version that is empty, negative, zero, no number,
// beyond any number or beyond the game; with a field sent twice that
// every page sends once; with overlong values, control characters, a NUL
// or bytes that are not UTF-8 in each field; by a spectator and by a
// visitor. Each is refused with a page (4xx) that names the field or the
// rule, and no row of any table changes.
func TestAttackFormsForged(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana, bob, dan := s.client(), s.client(), s.client()
		ana.register("ana", "ana password")
		bob.register("bob", "bob password")
		s.client().register("cyd", "cyd password")
		dan.register("dan", "dan password")
		apiAna, apiBob, apiCyd := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password"), s.apiLogin("cyd", "cyd password")
		id := s.startGameOf(apiAna, apiBob, true)
		s.stage(t, id, formsTurn)
		ahead := s.startGame(apiAna, apiBob)
		s.stage(t, ahead, formsTurn)
		s.stage(t, ahead, formsTurn)
		theirs := s.startGame(apiBob, apiCyd)

		page := ana.get(gamePath(id)).mustSee(t, 200, "Your move").Body
		tool := mustForm(t, page, "Play Rapid Prototype")
		v := itoa(s.formsVersion(id))
		path := gamePath(id) + "/play"
		base := func(set ...string) url.Values {
			f := url.Values{"v": {v}, "key": {"forged"}, "type": {"play_tool"}, "card": {tool.Fields.Get("card")}}
			for i := 0; i+1 < len(set); i += 2 {
				f[set[i]] = strings.Split(set[i+1], "|")
			}
			return f
		}
		many := strings.TrimSuffix(strings.Repeat("x|", 65), "|")
		type forged struct {
			name, path string
			form       url.Values
			status     int    // 0: any 4xx
			want       string // what the page says
		}
		cases := []forged{
			{"the form in a game a version ahead", gamePath(ahead) + "/play", tool.Fields, 409, "The game moved on"},
			{"the form in a game of others", gamePath(theirs) + "/play", tool.Fields, 404, "Page not found"},
			{"the form in no game", "/games/999999/play", tool.Fields, 404, "Page not found"},
			{"a path of letters", "/games/abc/play", tool.Fields, 404, "Page not found"},
			{"a negative game", "/games/-1/play", tool.Fields, 404, "Page not found"},
			{"game zero", "/games/0/play", tool.Fields, 404, "Page not found"},
			{"a game beyond any number", "/games/99999999999999999999/play", tool.Fields, 404, "Page not found"},
			{"a card of bob's hand", path, base("card", s.formsInst(id, 1, "hand")), 422, "not in your hand"},
			{"a card of ana's deck", path, base("card", s.formsInst(id, 0, "deck")), 422, "not in your hand"},
			{"a challenge of the Challenge Deck", path, base("type", "claim", "card", "", "challenge", s.formsInst(id, 0, "challenges")), 422, "That move is not possible"},
			{"the service's timeout", path, base("type", "timeout"), 422, "“type”"},
			{"a resignation not confirmed", path, base("type", "resign"), 422, "Not resigned"},
			{"no version", path, base("v", ""), 422, "version"},
			{"a negative version", path, base("v", "-1"), 422, "version"},
			{"version zero", path, base("v", "0"), 422, "version"},
			{"a version of letters", path, base("v", "abc"), 422, "version"},
			{"a version with an exponent", path, base("v", "1e3"), 422, "version"},
			{"a version in hex", path, base("v", "0x10"), 422, "version"},
			{"a version with a space", path, base("v", " "+v), 422, "version"},
			{"a version with a fraction", path, base("v", v+".0"), 422, "version"},
			{"a version beyond any number", path, base("v", "99999999999999999999"), 422, "version"},
			{"a version the game has not reached", path, base("v", "9223372036854775807"), 422, "version"},
			{"the version twice", path, base("v", v+"|"+v), 422, "“v”"},
			{"the type twice", path, base("type", "play_tool|resign"), 422, "“type”"},
			{"the card twice", path, base("card", tool.Fields.Get("card")+"|"+tool.Fields.Get("card")), 422, "“card”"},
			{"the key twice", path, base("key", "forged|forged-2"), 422, "“key”"},
			{"an overlong card", path, base("card", strings.Repeat("c", 10000)), 422, "“card”"},
			{"an overlong key", path, base("key", strings.Repeat("k", 10000)), 422, "“key”"},
			{"too many challenges", path, base("type", "claim", "challenge", many), 422, "“challenge”"},
			{"a control character in the card", path, base("card", "a\x01b"), 422, "“card”"},
			{"a line break in the key", path, base("key", "k\r\nX-Injected: 1"), 422, "“key”"},
			{"a tab in the type", path, base("type", "play_tool\t"), 422, "“type”"},
			{"a NUL in the card", path, base("card", "a\x00b"), 422, "“card”"},
			{"a NUL in the version", path, base("v", v+"\x00"), 422, "“v”"},
			{"bytes not UTF-8 in the key", path, base("key", "\xc3\x28"), 422, "“key”"},
		}
		before := s.formsDump()
		check := func(who string, c forged, r resp) {
			t.Helper()
			if r.Status < 400 || r.Status >= 500 || c.status != 0 && r.Status != c.status {
				t.Errorf("%s, %s: %d, want %d\n%s", who, c.name, r.Status, c.status, clip(r.Body))
			} else if !strings.Contains(r.Body, c.want) {
				t.Errorf("%s, %s: the page does not say %q: %q\n%s", who, c.name, c.want, formsProblem(r.Body), clip(r.Body))
			}
			if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
				t.Errorf("%s, %s: answered as %q", who, c.name, r.Header.Get("Content-Type"))
			}
			if after := s.formsDump(); after != before {
				t.Fatalf("%s, %s: the store changed:\n%s", who, c.name, formsDiff(before, after))
			}
		}
		for _, c := range cases {
			check("ana", c, ana.post(c.path, c.form))
		}

		// Ana places Qubo: bob is asked whether to answer it, and ana
		// forges answers to his prompt.
		ana.send(mustForm(t, page, "Place Qubo")).mustRedirect(t, gamePath(id))
		v = itoa(s.formsVersion(id))
		_, st := s.gameState(id)
		bobsPrompt := st.Prompts[0].ID
		before = s.formsDump()
		for _, c := range []forged{
			{"an answer to bob's prompt", path, base("type", "answer", "card", "", "prompt", bobsPrompt, "choice", engine.Pass), 422, "not yours"},
			{"the prompt twice", path, base("type", "answer", "card", "", "prompt", bobsPrompt+"|"+bobsPrompt, "choice", "pass"), 422, "“prompt”"},
			{"an overlong prompt", path, base("type", "answer", "card", "", "prompt", strings.Repeat("p", 1000)), 422, "“prompt”"},
			{"too many choices", path, base("type", "answer", "card", "", "prompt", bobsPrompt, "choice", many), 422, "“choice”"},
			{"a DEL in the prompt", path, base("type", "answer", "card", "", "prompt", "p\x7f"), 422, "“prompt”"},
			{"bytes not UTF-8 in a choice", path, base("type", "answer", "card", "", "prompt", bobsPrompt, "choice", "\xff\xfe"), 422, "“choice”"},
		} {
			check("ana", c, ana.post(c.path, c.form))
		}
		// Bob answers his prompt with an option it does not offer.
		check("bob", forged{name: "an option not offered", form: nil, want: "That move is not possible"},
			bob.post(path, url.Values{"v": {v}, "key": {"b"}, "type": {"answer"}, "prompt": {bobsPrompt}, "choice": {s.formsInst(id, 0, "hand")}}))
		// dan watches the public game; cyd has no part in it either and
		// may not see it privately.
		check("dan", forged{name: "a spectator's move", status: 403, want: "no seat"}, dan.post(path, tool.Fields))
		check("dan", forged{name: "a move in a game dan may not see", status: 404, want: "Page not found"},
			dan.post(gamePath(theirs)+"/play", tool.Fields))
		if r := s.client().post(path, tool.Fields); r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/login") {
			t.Errorf("a visitor's move: %d to %q", r.Status, r.Header.Get("Location"))
		}
		if after := s.formsDump(); after != before {
			t.Fatalf("a visitor's move changed the store:\n%s", formsDiff(before, after))
		}

		// The lobby's forms, forged: a seat taken with bob's own deck or
		// with decks no menu has, and another's game started, cancelled,
		// left, declined, reclaimed or asked for a rematch.
		open := s.formsOpen(apiBob, map[string]any{"players": 3, "public": true})
		bobsDeck := s.makeDeck(apiBob)
		before = s.formsDump()
		join := gamePath(open) + "/join"
		for _, c := range []forged{
			{"a seat with bob's deck", join, url.Values{"key": {"j1"}, "deck": {"deck:" + itoa(bobsDeck)}}, 422, "no deck " + itoa(bobsDeck)},
			{"a seat with a negative deck", join, url.Values{"key": {"j2"}, "deck": {"deck:-1"}}, 422, "Choose a deck"},
			{"a seat with a deck beyond any number", join, url.Values{"key": {"j3"}, "deck": {"deck:99999999999999999999"}}, 422, "Choose a deck"},
			{"a seat with a deck of letters", join, url.Values{"key": {"j4"}, "deck": {"deck:abc"}}, 422, "Choose a deck"},
			{"a seat with no prebuilt deck", join, url.Values{"key": {"j5"}, "deck": {"prebuilt:<b>none</b>"}}, 422, "&lt;b&gt;none&lt;/b&gt;"},
			{"a seat with no deck", join, url.Values{"key": {"j6"}}, 422, "Choose a deck"},
			{"a start of bob's game", gamePath(open) + "/start", url.Values{"key": {"s"}}, 0, "That did not work"},
			{"a cancel of bob's game", gamePath(open) + "/cancel", url.Values{"key": {"c"}}, 0, "That did not work"},
			{"a leave of a game ana has no seat in", gamePath(open) + "/leave", url.Values{"key": {"l"}}, 0, "That did not work"},
			{"a decline with no invitation", gamePath(open) + "/decline", url.Values{"key": {"d"}}, 0, "That did not work"},
			{"a seat back from no bot", gamePath(id) + "/reclaim", url.Values{"key": {"r"}}, 0, "That did not work"},
			{"a rematch of a game in play", gamePath(id) + "/rematch", url.Values{"key": {"m"}}, 0, "That did not work"},
			{"a rematch of a game of others", gamePath(theirs) + "/rematch", url.Values{"key": {"m2"}}, 404, "Page not found"},
		} {
			check("ana", c, ana.post(c.path, c.form))
		}
	})
}

// formsDiscard is a position at the start of ana's turn: her draw takes
// her hand past the limit, and she must choose two cards to discard.
// Bob's hand, deck and Recycle Bin, her own deck's last card and the
// Challenge Deck hold cards no one else has.
const formsDiscard = `
name: ana discards two
phase: beginning
players:
  - name: ana
    hand: [rapid-prototype, glitchy-junior, hiring-freeze, data-lake, open-source-library, frontend-framework]
    deck: [proof-of-concept, design-system, all-nighter-build]
  - name: bob
    hand: [kubernetes-cluster, qubo-junior, red-tape]
    deck: [bi-suite, analytics-sdk]
    bin: [cloud-outage]
market: [spam-filter, todo-app]
challenge_deck: [sales-dashboard, booking-system]
`

// formsChoose is the board's form of a choice of several, with the boxes
// of options picked ticked.
func formsChoose(t *testing.T, body string, picked ...int) pageForm {
	t.Helper()
	for _, f := range formsOf(t, body) {
		if f.Fields.Get("type") == "answer" && len(f.Boxes) > 0 {
			f.Fields.Del("choice")
			for _, i := range picked {
				f.Fields.Add("choice", f.Boxes[i].Value)
			}
			return f
		}
	}
	t.Fatalf("no choice of several on the board:\n%s", clip(body))
	return pageForm{}
}

// TestAttackFormsKeyReused: a form's key sent again with other values.
// Ana opens her board in two tabs, which show the same version (and, the
// board read from the cache of boards, the same forms' keys): she answers
// the discard in one and, in the other, ticks other cards; she saves her
// standing answers in one and other answers in the other; and she sends
// her turn's form of one game to another game's address. A copy sent
// with other values is not the form sent again: it is refused (4xx, the
// page says why) unless what it asks is done, never answered as done when
// nothing of it was.
func TestAttackFormsKeyReused(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		_, _, id := s.anaAndBob()
		s.stage(t, id, formsDiscard)
		ana := s.client()
		ana.login("ana", "ana password")
		tab1, tab2 := ana.get(gamePath(id)).mustSee(t, 200, "Your move").Body, ana.get(gamePath(id)).Body
		first, other := formsChoose(t, tab1, 0, 1), formsChoose(t, tab2, 2, 3)
		t.Logf("the two tabs' keys: %q, %q", first.Fields.Get("key"), other.Fields.Get("key"))
		ana.send(first).mustRedirect(t, gamePath(id))
		bin, hand := s.formsBin(id, 0), s.formsHand(id, 0)
		r := ana.send(other)
		if r.Status < 400 || r.Status >= 500 || formsProblem(r.Body) == "" {
			t.Errorf("the other tab's discard: %d, %q (bin %q)\n%s", r.Status, formsProblem(r.Body), s.formsBin(id, 0), clip(r.Body))
		}
		if s.formsBin(id, 0) != bin || s.formsHand(id, 0) != hand {
			t.Fatalf("the other tab's discard changed the bin from %q to %q", bin, s.formsBin(id, 0))
		}
		ana.send(first).mustRedirect(t, gamePath(id)) // the first sent again: a repeat

		// Standing answers, saved from two tabs of one version.
		tab1, tab2 = ana.get(gamePath(id)).Body, ana.get(gamePath(id)).Body
		standing := func(body string) pageForm {
			for _, f := range formsOf(t, body) {
				if f.Fields.Get("type") == "standing" {
					return f
				}
			}
			t.Fatal("no standing answers form")
			return pageForm{}
		}
		passing, playing := standing(tab1), standing(tab2)
		passing.Fields.Set("pass", "on")
		playing.Fields.Set("play", playing.Boxes[0].Value)
		ana.send(passing).mustRedirect(t, gamePath(id))
		r = ana.send(playing)
		got := s.webStanding(t, id, 0)
		switch {
		case r.Status == http.StatusSeeOther && !strings.Contains(got, "hiring-freeze"):
			t.Errorf("the other tab's standing answers were answered as saved, and are not: %s", got)
		case r.Status != http.StatusSeeOther && (r.Status < 400 || r.Status >= 500 || formsProblem(r.Body) == ""):
			t.Errorf("the other tab's standing answers: %d, %q", r.Status, formsProblem(r.Body))
		}

		// A turn's form sent to another game where it would go as well.
		apiAna, apiBob := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")
		x, y := s.startGame(apiAna, apiBob), s.startGame(apiAna, apiBob)
		s.stage(t, x, formsTurn)
		s.stage(t, y, formsTurn)
		if s.formsVersion(x) != s.formsVersion(y) {
			t.Fatalf("games %d and %d are at versions %d and %d", x, y, s.formsVersion(x), s.formsVersion(y))
		}
		end := mustForm(t, ana.get(gamePath(x)).Body, "End your turn")
		ana.send(end).mustRedirect(t, gamePath(x))
		v := s.formsVersion(y)
		r = ana.post(gamePath(y)+"/play", end.Fields)
		moved := s.formsVersion(y) != v
		switch {
		case r.Status == http.StatusSeeOther && !moved:
			t.Errorf("game %d's form sent to game %d was answered as done, and nothing was: to %q", x, y, r.Header.Get("Location"))
		case r.Status != http.StatusSeeOther && moved:
			t.Errorf("game %d's form sent to game %d was refused (%d) and moved the game", x, y, r.Status)
		case r.Status != http.StatusSeeOther && (r.Status < 400 || r.Status >= 500 || formsProblem(r.Body) == ""):
			t.Errorf("game %d's form sent to game %d: %d, %q", x, y, r.Status, formsProblem(r.Body))
		}
	})
}

// formsTwin is formsDiscard with every card ana has not seen dealt
// otherwise: bob's hand, deck and Recycle Bin and the Challenge Deck hold
// other cards, as many of each. To ana the two games are alike.
const formsTwin = `
name: ana discards two, other hidden cards
phase: beginning
players:
  - name: ana
    hand: [rapid-prototype, glitchy-junior, hiring-freeze, data-lake, open-source-library, frontend-framework]
    deck: [proof-of-concept, design-system, all-nighter-build]
  - name: bob
    hand: [super-app, doodle-junior, scope-creep]
    deck: [enterprise-service-bus, boss-blob-junior]
    bin: [merge-conflict]
market: [spam-filter, todo-app]
challenge_deck: [support-chatbot, online-store]
`

// formsMirror is formsDiscard with ana's hand, which bob has not seen,
// dealt otherwise: to bob (and to anyone watching) the games are alike.
const formsMirror = `
name: ana discards two, another hand
phase: beginning
players:
  - name: ana
    hand: [super-app, doodle-junior, scope-creep, bi-suite, enterprise-service-bus, boss-blob-junior]
    deck: [proof-of-concept, design-system, all-nighter-build]
  - name: bob
    hand: [kubernetes-cluster, qubo-junior, red-tape]
    deck: [bi-suite, analytics-sdk]
    bin: [cloud-outage]
market: [spam-filter, todo-app]
challenge_deck: [sales-dashboard, booking-system]
`

// formsStream is what game id's live stream sends c when it opens: its
// backlog, until a second passes without an event.
func (c *client) formsStream(id int64) string {
	c.s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.abs(gamePath(id)+"/live"), nil)
	req.Header.Set("Accept", "text/event-stream")
	r, err := c.http.Do(req)
	if err != nil {
		c.s.t.Fatal(err)
	}
	if r.StatusCode != http.StatusOK {
		r.Body.Close()
		c.s.t.Fatalf("the live stream of game %d: %d", id, r.StatusCode)
	}
	events := ssetest.Read(r.Body)
	var out strings.Builder
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return out.String()
			}
			out.WriteString(ev.Type + " " + ev.Data + "\n")
		case <-time.After(time.Second):
			return out.String()
		}
	}
}

// formsPages are what c is shown of game id: its board (read twice, the
// second from the cache of boards), the board with the news since the
// start, the whole log, the version the script polls, the live stream's
// backlog, the lobby, the page of an action link of c's (if seat has a
// move), and the pages of refused forms: forged answers naming cards of
// the others' hands and decks, a choice of too few, a play of a card of
// another hand, a claim of the Challenge Deck, standing answers with Red
// Tape (which bob holds in one game and not in its twin), a form of a
// version gone by. Each is keyed by what it is; echo are what c sent in
// the refused forms, which their pages may say again.
func (s *site) formsPages(c *client, id int64, seat int) (out map[string]string, echo map[string][]string) {
	s.t.Helper()
	g := gamePath(id)
	out, echo = map[string]string{}, map[string][]string{}
	out["board"] = c.get(g).Body
	out["board again"] = c.get(g).Body
	out["news"] = c.get(g + "?since=1").Body
	out["log"] = c.get(g + "/log").Body
	out["state"] = c.get(g + "/state").Body
	out["live"] = c.formsStream(id)
	if seat < 0 {
		return out, echo
	}
	out["lobby"] = c.get("/").Body
	gm, st := s.gameState(id)
	other := 1 - seat
	if moves := engine.Moves(st, seat); len(moves) > 0 {
		lines := engine.Numbered(moves)
		link := notifier.ActionURL(s.url, s.secret, *gm.Seats[seat].UserID, id, gm.Version, 1, engine.Digest(lines), *gm.DeadlineAt, s.clock.Now())
		out["action link"] = c.get(mustPathOf(s.t, link)).Body
		out["action link signed out"] = s.client().get(mustPathOf(s.t, link)).Body
	}
	v := itoa(gm.Version)
	post := func(name string, form url.Values, sent ...string) {
		r := c.post(g+"/play", form)
		if r.Status < 400 || r.Status >= 500 {
			s.t.Fatalf("the forged form %q: %d", name, r.Status)
		}
		out[name], echo[name] = r.Body, sent
	}
	var prompt string
	if ps := engine.PromptsFor(st, seat); len(ps) > 0 {
		prompt = ps[0].ID
	}
	hand, deck := st.Players[other].Hand[0].ID, st.Players[other].Deck[0].ID
	post("an answer naming cards of the other hand and deck", url.Values{"v": {v}, "key": {"h1"}, "type": {"answer"}, "prompt": {prompt},
		"choice": {hand, deck}}, hand, deck)
	post("an answer of too few", url.Values{"v": {v}, "key": {"h2"}, "type": {"answer"}, "prompt": {prompt}, "choice": {hand}}, hand)
	post("a play of a card of the other hand", url.Values{"v": {v}, "key": {"h3"}, "type": {"play_tool"}, "card": {hand}}, hand)
	challenge := st.ChallengeDeck[0].ID
	post("a claim of the Challenge Deck", url.Values{"v": {v}, "key": {"h4"}, "type": {"claim"}, "challenge": {challenge}}, challenge)
	post("a form of a version gone by", url.Values{"v": {itoa(gm.Version - 1)}, "key": {"h5"}, "type": {"end_turn"}})
	post("standing answers with Red Tape", url.Values{"v": {v}, "key": {"h6"}, "type": {"standing"}, "play": {"place:red-tape"}},
		"red-tape", "Red Tape")
	return out, echo
}

// formsStart starts a public game of a and b with no event in its log:
// open, joined, and marked started, for a position to be staged in it
// (a game started by the play path has events of its own deal, which
// differ from game to game).
func (s *site) formsStart(a, b apiUser) int64 {
	s.t.Helper()
	id := s.formsOpen(a, map[string]any{"invite": []string{b.Name}, "public": true})
	s.formsJoin(b, id)
	if _, err := s.store.Mutate(context.Background(), id, func(g *models.Game) (*models.Change, error) {
		now := s.clock.Now()
		g.Status, g.StartedAt = models.StatusActive, &now
		return nil, nil
	}); err != nil {
		s.t.Fatal(err)
	}
	return id
}

// formsHiddenFrom is what seat (-1: a spectator) may not know of the
// game of st, by card id (the catalogue's) and by instance id: the cards
// of the other seats' hands, decks and Recycle Bins and of the Challenge
// Deck that the seat was never shown (in its view, its events or its
// moves) and that no card it was shown names in its text.
func (s *site) formsHiddenFrom(id int64, st *engine.State, seat int) (cards map[string]bool, insts map[string]bool) {
	s.t.Helper()
	recs, err := s.store.EventsAfter(context.Background(), id, 0, 100000)
	if err != nil {
		s.t.Fatal(err)
	}
	var shown strings.Builder
	data, _ := json.Marshal(st.View(seat))
	shown.Write(data)
	for _, r := range recs {
		var e engine.Event
		if err := json.Unmarshal([]byte(r.Body), &e); err != nil {
			s.t.Fatal(err)
		}
		if v, ok := e.For(seat); ok {
			data, _ := json.Marshal(v)
			shown.Write(data)
		}
	}
	if seat >= 0 {
		data, _ := json.Marshal(engine.Moves(st, seat))
		shown.Write(data)
	}
	cat := engine.Standard()
	known := map[string]bool{}
	for _, c := range cat.Cards() {
		if strings.Contains(shown.String(), `"`+c.ID+`"`) {
			known[c.ID] = true
		}
	}
	cards, insts = map[string]bool{}, map[string]bool{}
	add := func(pile []engine.Inst) {
		for _, in := range pile {
			insts[in.ID] = true
			if known[in.Card] {
				continue
			}
			named := false
			for k := range known {
				named = named || strings.Contains(engine.CardText(cat.Card(k)), cat.Card(in.Card).Name)
			}
			if !named {
				cards[in.Card] = true
			}
		}
	}
	for i := range st.Players {
		if i != seat {
			add(st.Players[i].Hand)
			add(st.Players[i].Deck)
			add(st.Players[i].Bin)
		}
	}
	add(st.ChallengeDeck)
	return cards, insts
}

var (
	formsTimePattern = regexp.MustCompile(`<time[^>]*>[^<]*</time>|\d{1,2} [A-Z][a-z]{2}( \d{4})?,? \d{1,2}:\d{2}( [A-Z]{2,5})?|"(at|created_at|deadline)":"[^"]*"`)
	formsKeyPattern  = regexp.MustCompile(`[0-9a-f]{24}`)
)

// formsSame reports where page a of game x differs from page b of game
// y once what differs between any two games is put aside: their ids and
// paths, the forms' keys, the times, and the instance ids of the two
// states (each named by where it is: ids alike in place read alike).
func formsSame(a, b string, x, y int64, sx, sy *engine.State) string {
	norm := func(p string, id int64, st *engine.State) string {
		p = formsTimePattern.ReplaceAllString(p, "TIME")
		p = formsKeyPattern.ReplaceAllString(p, "KEY")
		for i, in := range formsPlaces(st) {
			p = strings.ReplaceAll(p, in, fmt.Sprintf("INST%d", i))
		}
		p = strings.ReplaceAll(p, "/games/"+itoa(id), "/games/G")
		p = strings.ReplaceAll(p, "Game #"+itoa(id), "Game #G")
		p = strings.ReplaceAll(p, `"game_id":`+itoa(id), `"game_id":G`)
		return p
	}
	return formsDiff(norm(a, x, sx), norm(b, y, sy))
}

// formsPlaces are the instance ids of st in a fixed order of places.
func formsPlaces(st *engine.State) []string {
	var out []string
	add := func(pile []engine.Inst) {
		for _, in := range pile {
			out = append(out, in.ID)
		}
	}
	for _, p := range st.Players {
		add(p.Hand)
		add(p.Deck)
		add(p.Bin)
		add(p.Lab)
		add(p.Ranking)
	}
	add(st.Market)
	add(st.ChallengeDeck)
	return out
}

// TestAttackFormsHiddenCards: what a page shows a seat never names a card
// the seat may not know. Three games start alike; each is set to a
// position of ana's turn in which she must discard two cards: in the
// first, then in a twin whose cards hidden from ana (bob's hand, deck and
// Recycle Bin, the Challenge Deck) are others, and in a mirror whose
// cards hidden from bob (ana's hand) are others. For ana, for bob and for
// dan, who watches, every page of the game (the board, read twice, with
// the news since the start, the whole log, the script's poll, the live
// stream's backlog, the lobby, an action link's page signed in and
// signed out) and the pages of refused forms that name cards hidden from
// them (an answer, a play, a claim, standing answers with a card of the
// other hand or the Challenge Deck, a choice of too few, a form of a
// version gone by) name none of those cards, by name, by card id or by
// instance id; and they read the same, byte for byte, in the games that
// differ only in what is hidden from their reader, once the games' ids,
// the forms' keys and the times are put aside.
func TestAttackFormsHiddenCards(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{outbox: true})
		ana, bob, dan := s.client(), s.client(), s.client()
		ana.register("ana", "ana password")
		bob.register("bob", "bob password")
		dan.register("dan", "dan password")
		apiAna, apiBob := s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")
		var ids []int64
		for range 3 {
			ids = append(ids, s.formsStart(apiAna, apiBob))
		}
		for i, doc := range []string{formsDiscard, formsTwin, formsMirror} {
			s.stage(t, ids[i], doc)
		}
		states := make([]*engine.State, len(ids))
		for i, id := range ids {
			_, states[i] = s.gameState(id)
		}
		searched := 0
		for _, r := range []struct {
			name   string
			c      *client
			seat   int
			hidden int // the game in which only what is hidden from the reader differs from the first
		}{{"ana", ana, 0, 1}, {"bob", bob, 1, 2}, {"dan", dan, engine.Spectator, 2}} {
			cards, insts := s.formsHiddenFrom(ids[0], states[0], r.seat)
			if len(cards) < 6 {
				t.Fatalf("%s may not know only %d cards: %v", r.name, len(cards), cards)
			}
			first, echo := s.formsPages(r.c, ids[0], r.seat)
			for what, page := range first {
				for card := range cards {
					for _, w := range []string{engine.Standard().Card(card).Name, card} {
						if i := strings.Index(page, w); i >= 0 && !slices.Contains(echo[what], w) {
							t.Errorf("%s's %s names %s, a card hidden from them: …%s…", r.name, what, w, page[max(i-200, 0):min(i+100, len(page))])
						}
					}
				}
				for in := range insts {
					if i := strings.Index(page, in); i >= 0 && !slices.Contains(echo[what], in) {
						t.Errorf("%s's %s holds the id %s of a card hidden from them: …%s…", r.name, what, in, page[max(i-200, 0):min(i+100, len(page))])
					}
				}
				searched++
			}
			alike, _ := s.formsPages(r.c, ids[r.hidden], r.seat)
			for what, page := range first {
				if what == "lobby" { // it lists every game
					continue
				}
				if diff := formsSame(page, alike[what], ids[0], ids[r.hidden], states[0], states[r.hidden]); diff != "" {
					t.Errorf("%s's %s differs between two games that differ only in cards hidden from them:\n%s", r.name, what, diff)
				}
			}
		}
		// The search could find something: ana's own hand is on her board.
		if page := ana.get(gamePath(ids[0])).Body; !strings.Contains(page, "Hiring Freeze") || !strings.Contains(page, "Proof of Concept") {
			t.Fatal("ana's board does not show her own hand: the search looks at nothing")
		}
		t.Logf("%d pages searched", searched)
	})
}
