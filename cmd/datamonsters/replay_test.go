package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/api"
	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
)

// apiClient calls a server's API as one user.
type apiClient struct {
	t     *testing.T
	base  string
	token string
}

func (c apiClient) call(method, path string, body, out any) int {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	r, _ := http.NewRequest(method, c.base+path, rd)
	r.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		r.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			c.t.Fatalf("%s %s: %v: %s", method, path, err, data)
		}
	}
	return res.StatusCode
}

func (c apiClient) must(method, path string, body, out any) {
	c.t.Helper()
	if code := c.call(method, path, body, out); code >= 300 {
		c.t.Fatalf("%s %s: status %d", method, path, code)
	}
}

// register makes a user and returns a client with their access token.
func register(t *testing.T, base, name string) apiClient {
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	c := apiClient{t: t, base: base}
	c.must("POST", "/v1/auth/register", map[string]string{"username": name, "password": "password-" + name, "email": name + "@example.com"}, &tok)
	c.token = tok.AccessToken
	return c
}

// playedGame runs a real server over HTTP on a fresh store, and plays a
// two-player game on it with greedy bots to its end through the public
// API, with batches of two actions (an action and end_turn, which waits
// in the queue when the first opens a prompt; most games have one that
// does) and two timeouts the service submits. It returns the server's address, the players and a
// spectator, and the game id.
func playedGame(t *testing.T) (base string, players []apiClient, spectator apiClient, id int64) {
	var clock atomic.Int64 // seconds the server's clock is ahead of time
	now := func() time.Time { return time.Now().Add(time.Duration(clock.Load()) * time.Second) }
	st := modelstest.Open(t, models.SQLite, models.Options{Now: now})
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	secret := []byte("replay-test-secret-0123456789abcdef")
	server := play.New(st, now, log)
	acc := accounts.New(st, server, accounts.Config{Secret: secret, Issuer: "datamonsters", Audience: "datamonsters-api", AccessTTL: 30 * 24 * time.Hour}, log, now)
	srv := httptest.NewServer(api.New(st, server, acc, api.Config{Secret: secret}, log, now).Handler())
	t.Cleanup(srv.Close)
	ana, bob := register(t, srv.URL, "ana"), register(t, srv.URL, "bob")
	spectator = register(t, srv.URL, "eve")
	players = []apiClient{ana, bob}
	var g struct {
		ID int64 `json:"id"`
	}
	ana.must("POST", "/v1/games", map[string]any{"players": 2, "mode": "fast", "deck": map[string]string{"prebuilt": "running-a-startup"}}, &g)
	path := "/v1/games/" + strconv.FormatInt(g.ID, 10)
	bob.must("POST", path+"/join", map[string]any{"deck": map[string]string{"prebuilt": "working-for-the-enterprise"}}, nil)
	ana.must("POST", path+"/start", nil, nil)
	if code := spectator.call("GET", path+"/actions", nil, nil); code != http.StatusConflict {
		t.Fatalf("the action log of a running game: %d", code)
	}
	// A replay of a running game cannot be made.
	var out, errOut bytes.Buffer
	if code := replayMain([]string{"--url", srv.URL, "--token", spectator.token, strconv.FormatInt(g.ID, 10)}, noEnv, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "game_not_over") {
		t.Fatalf("replay of a running game: exit %d, %s", code, errOut.String())
	}
	bots := []bot.Bot{bot.NewGreedy(rand.New(rand.NewPCG(3, 0))), bot.NewGreedy(rand.New(rand.NewPCG(3, 1)))}
	batches, queued := 0, 0
	for n := 0; ; n++ {
		if n == 3000 {
			t.Fatal("the game did not end")
		}
		var cur struct {
			Status string `json:"status"`
			Seats  []struct {
				Awaited bool `json:"awaited"`
			} `json:"seats"`
		}
		ana.must("GET", path, nil, &cur)
		if cur.Status != "active" {
			break
		}
		seat := slices.IndexFunc(cur.Seats, func(s struct {
			Awaited bool `json:"awaited"`
		}) bool {
			return s.Awaited
		})
		var mine struct {
			Version int64           `json:"version"`
			View    *engine.View    `json:"view"`
			Legal   []engine.Action `json:"legal"`
		}
		players[seat].must("GET", path, nil, &mine)
		if n == 12 || n == 40 {
			clock.Add(4 * 24 * 3600) // past any deadline
			if ok, err := server.Timeout(context.Background(), g.ID); !ok || err != nil {
				t.Fatalf("timeout: %v %v", ok, err)
			}
			continue
		}
		a := bots[seat].Choose(mine.View, mine.Legal)
		if (batches < 3 || queued == 0) && (a.Type == engine.ActPlace || a.Type == engine.ActPlayTool || a.Type == engine.ActPlayHack) {
			batch := []engine.Action{a, {Type: engine.ActEndTurn}}
			var res struct {
				Events []struct {
					Event engine.Event `json:"event"`
				} `json:"events"`
			}
			if players[seat].call("POST", path+"/actions", map[string]any{"expected_version": mine.Version, "actions": batch}, &res) == http.StatusOK {
				batches++
				for _, e := range res.Events {
					if e.Event.Kind == "queued" {
						queued++
					}
				}
				continue
			}
		}
		players[seat].must("POST", path+"/actions", map[string]any{"expected_version": mine.Version, "actions": []engine.Action{a}}, nil)
	}
	if batches < 2 {
		t.Fatalf("%d batches of two actions were accepted", batches)
	}
	t.Logf("%d batches of two actions, %d of them queued", batches, queued)
	return srv.URL, players, spectator, g.ID
}

func noEnv(string) string { return "" }

// TestReplay plays a game on a real server to its end, checks it with
// datamonsters replay from the server (as a spectator and as a player) and
// from the saved file, then alters the file: one action made illegal, one
// action swapped for another legal one, the secret, and the commitment
// the caller saw. Each alteration fails the replay, which names what.
func TestReplay(t *testing.T) {
	base, players, spectator, id := playedGame(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "game.json")
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := replayMain(args, noEnv, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	gameID := strconv.FormatInt(id, 10)
	if code, out, errOut := run("--url", base, "--token", spectator.token, "--save", file, gameID); code != 0 || !strings.Contains(out, "OK") {
		t.Fatalf("replay as a spectator: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := run("--url", base, "--token", players[1].token, gameID)
	if code != 0 || !strings.Contains(out, "as seat 1 sees it") {
		t.Fatalf("replay as seat 1: exit %d\n%s%s", code, out, errOut)
	}
	t.Log(out)
	if code, out, errOut := run(file); code != 0 {
		t.Fatalf("replay of the saved file: exit %d\n%s%s", code, out, errOut)
	}

	var rec replayRecord
	data, err := os.ReadFile(file)
	if err == nil {
		err = json.Unmarshal(data, &rec)
	}
	if err != nil {
		t.Fatal(err)
	}
	var log map[string]any
	if err := json.Unmarshal(rec.Log, &log); err != nil {
		t.Fatal(err)
	}
	actions := log["actions"].([]any)
	commitment := log["fairness"].(map[string]any)["commitment"].(string)
	if code, _, errOut := run("--commitment", commitment, file); code != 0 {
		t.Fatalf("replay with the commitment seen: exit %d: %s", code, errOut)
	}
	// altered writes the record with fn applied to a copy of the log.
	altered := func(name string, fn func(log map[string]any)) string {
		var cp map[string]any
		json.Unmarshal(rec.Log, &cp)
		fn(cp)
		r := rec
		r.Log, _ = json.Marshal(cp)
		data, _ := json.Marshal(r)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A card action in the second half of the log names another card:
	// illegal, and named.
	half := len(actions) / 2
	k := slices.IndexFunc(actions[half:], func(a any) bool {
		_, ok := a.(map[string]any)["action"].(map[string]any)["card"]
		return ok
	}) + half
	if k < half {
		t.Fatal("no card action in the log")
	}
	seq := int64(actions[k].(map[string]any)["seq"].(float64))
	illegal := altered("illegal.json", func(l map[string]any) {
		l["actions"].([]any)[k].(map[string]any)["action"].(map[string]any)["card"] = "zzzzzzzzzz"
	})
	if code, _, errOut := run(illegal); code != 1 || !strings.Contains(errOut, fmt.Sprintf("action seq %d ", seq)) {
		t.Fatalf("an illegal action in the log: exit %d: %s", code, errOut)
	} else {
		t.Logf("an illegal action: %s", errOut)
	}
	// One action swapped for another that was legal at its place: the
	// game no longer goes as the log says, and the replay says where.
	swapAt, swap := legalSwap(t, rec)
	swapped := altered("swapped.json", func(l map[string]any) {
		a := l["actions"].([]any)[swapAt].(map[string]any)
		data, _ := json.Marshal(swap)
		var m map[string]any
		json.Unmarshal(data, &m)
		a["action"] = m
	})
	if code, _, errOut := run(swapped); code != 1 || !strings.Contains(errOut, "FAIL") {
		t.Fatalf("a legal action swapped in: exit %d: %s", code, errOut)
	} else {
		t.Logf("action %d swapped for %v: %s", swapAt, swap, errOut)
	}
	// The events as an earlier version of the service logged them: other
	// texts, and no cards on the events that name them now. The facts are
	// the same: the replay passes, and says how many it words otherwise.
	// A fact changed (a card) fails it.
	events := func(name string, fn func(e map[string]any) bool) string {
		r := rec
		r.Events = nil
		for _, raw := range rec.Events {
			var le map[string]any
			json.Unmarshal(raw, &le)
			if ev, ok := le["event"].(map[string]any); ok && fn(ev) {
				le["event"] = ev
			}
			b, _ := json.Marshal(le)
			r.Events = append(r.Events, b)
		}
		data, _ := json.Marshal(r)
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		return p
	}
	older := events("older.json", func(e map[string]any) bool {
		e["text"] = "worded otherwise"
		if e["kind"] == "window_opened" || e["kind"] == "cancelled" {
			delete(e, "cards")
		}
		return true
	})
	if code, out, errOut := run(older); code != 0 || !strings.Contains(out, "worded, or with details added, as this version") {
		t.Fatalf("a log of other wording: exit %d: %s%s", code, out, errOut)
	}
	changed := false
	otherCard := events("card.json", func(e map[string]any) bool {
		if _, ok := e["card"]; ok && !changed {
			e["card"], changed = "data-lake-but-not", true
		}
		return true
	})
	if code, _, errOut := run(otherCard); code != 1 || !changed || !strings.Contains(errOut, "the game's event log") {
		t.Fatalf("an event naming another card: exit %d: %s", code, errOut)
	}
	// A secret other than the one committed to.
	badSecret := altered("secret.json", func(l map[string]any) {
		f := l["fairness"].(map[string]any)
		s := f["secret"].(string)
		first := "0"
		if s[0] == '0' {
			first = "1"
		}
		f["secret"] = first + s[1:]
	})
	if code, _, errOut := run(badSecret); code != 1 || !strings.Contains(errOut, "commitment") {
		t.Fatalf("another secret: exit %d: %s", code, errOut)
	}
	// A commitment other than the one the caller saw.
	if code, _, errOut := run("--commitment", strings.Repeat("ab", 32), file); code != 1 || !strings.Contains(errOut, "you saw") {
		t.Fatalf("another commitment: exit %d: %s", code, errOut)
	}
	// A bare action log is checked too, without the event log.
	bare := filepath.Join(dir, "log.json")
	os.WriteFile(bare, rec.Log, 0o644)
	if code, out, errOut := run(bare); code != 0 || !strings.Contains(out, "not read") {
		t.Fatalf("a bare action log: exit %d: %s%s", code, out, errOut)
	}
	// Without the event log, the swapped action still fails the replay.
	var sw replayRecord
	data, _ = os.ReadFile(swapped)
	json.Unmarshal(data, &sw)
	os.WriteFile(bare, sw.Log, 0o644)
	if code, _, errOut := run(bare); code != 1 {
		t.Fatalf("a bare action log with an action swapped: exit %d: %s", code, errOut)
	} else {
		t.Logf("without the event log: %s", errOut)
	}
	if code, _, _ := run(); code != 2 {
		t.Fatalf("no argument: exit %d", code)
	}
}

// legalSwap replays rec's log with the engine and returns the index of
// the first action (after the first few) of a one-action submission that
// had another legal action of its type beside it, and that other action.
func legalSwap(t *testing.T, rec replayRecord) (int, engine.Action) {
	var log play.ActionLog
	if err := json.Unmarshal(rec.Log, &log); err != nil {
		t.Fatal(err)
	}
	secret, _ := engine.ParseSecret(*log.Fairness.Secret)
	setup := engine.Setup{Secret: secret, Mode: log.Setup.Mode, Policy: log.Setup.Policy}
	for _, s := range log.Setup.Seats {
		setup.Players = append(setup.Players, engine.SeatSetup{Name: s.Name, Deck: s.Deck})
	}
	s, _, err := engine.NewGame(setup)
	if err != nil {
		t.Fatal(err)
	}
	entries := log.Entries()
	i, found := 0, errors.New("found")
	var swap engine.Action
	_, err = engine.Replay(s, entries, func(first engine.LoggedAction, _ []engine.Event, after *engine.State) error {
		j := i + 1
		for j < len(entries) && entries[j].Version == first.Version {
			j++
		}
		if i > 5 && first.Seat >= 0 && j == i+1 {
			for _, other := range engine.Legal(s, first.Seat) {
				if other.Type == first.Action.Type && other.String() != first.Action.String() {
					swap = other
					return found
				}
			}
		}
		s, i = after, j
		return nil
	})
	if err != found {
		t.Fatalf("no action with a legal alternative (%v)", err)
	}
	return i, swap
}

// TestReplayOfficeThreeSeats: an office game of three seats on prebuilt
// decks (whose sum holds more copies of some cards than an office deck
// may, so the shared deck drops them) replays: the replay merges the
// seats' decks as the server did and finds the log's office deck.
func TestReplayOfficeThreeSeats(t *testing.T) {
	st := modelstest.Open(t, models.SQLite, models.Options{})
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	secret := []byte("replay-test-secret-0123456789abcdef")
	server := play.New(st, nil, log)
	acc := accounts.New(st, server, accounts.Config{Secret: secret, Issuer: "datamonsters", Audience: "datamonsters-api",
		Hash: func(p string) string { return accounts.HashPasswordCost(p, 1, 64) }}, log, nil)
	srv := httptest.NewServer(api.New(st, server, acc, api.Config{Secret: secret}, log, nil).Handler())
	t.Cleanup(srv.Close)
	ana, bob, cyd := register(t, srv.URL, "ana"), register(t, srv.URL, "bob"), register(t, srv.URL, "cyd")
	deck := map[string]any{"deck": map[string]string{"prebuilt": "running-a-startup"}}
	var g struct {
		ID int64 `json:"id"`
	}
	ana.must("POST", "/v1/games", map[string]any{"players": 3, "mode": "fast", "office": true, "deck": deck["deck"]}, &g)
	path := "/v1/games/" + strconv.FormatInt(g.ID, 10)
	bob.must("POST", path+"/join", deck, nil)
	cyd.must("POST", path+"/join", deck, nil)
	ana.must("POST", path+"/start", nil, nil)
	bob.must("POST", path+"/resign", nil, nil)
	cyd.must("POST", path+"/resign", nil, nil)
	var out, errOut bytes.Buffer
	if code := replayMain([]string{"--url", srv.URL, "--token", ana.token, strconv.FormatInt(g.ID, 10)}, noEnv, &out, &errOut); code != 0 {
		t.Fatalf("replay of a three-seat office game: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}
