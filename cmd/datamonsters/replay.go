package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/play"
)

const replayUsage = `usage: datamonsters replay [flags] GAME_ID    (with --url: a finished game on a server)
       datamonsters replay [flags] FILE       (a record saved with --save, or an action log)

Checks that a finished game was dealt fairly: its revealed secret and salt
match the commitment it published at the start, and its setup, secret and
action log replay, action by action, to the events the reader saw, its
final state, winners and scores (docs/fairness.md). Exit status: 0 when
every check holds, 1 when one fails (the message names it), 2 when the
game cannot be read.

flags:
`

// replayRecord is what a replay checks: a finished game's detail, action
// log and event log, as one reader got them from the API. Game and Events
// may be absent (a bare action log), and then only the log is checked.
type replayRecord struct {
	Game   json.RawMessage   `json:"game,omitempty"`   // GET /v1/games/{id}
	Log    json.RawMessage   `json:"log"`              // GET /v1/games/{id}/actions
	Events []json.RawMessage `json:"events,omitempty"` // GET /v1/games/{id}/events, every page's entries
}

// The parts of the API's answers a replay reads.
type (
	replayGame struct {
		ID       int64           `json:"id"`
		Status   string          `json:"status"`
		YourSeat *int            `json:"your_seat"`
		Winners  []int           `json:"winners"`
		View     json.RawMessage `json:"view"`
		Fairness *play.Fairness  `json:"fairness"`
	}
	replayEvent struct {
		Seq     int64           `json:"seq"`
		Version int64           `json:"version"`
		Event   json.RawMessage `json:"event"`
	}
)

// runReplay runs `datamonsters replay`.
func runReplay(args []string) int {
	return replayMain(args, os.Getenv, os.Stdout, os.Stderr)
}

// replayMain is runReplay with its environment and output given.
func replayMain(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, replayUsage); fs.PrintDefaults() }
	base := fs.String("url", "", "the server's address (http://host:port): read the game GAME_ID from it")
	token := fs.String("token", "", "bearer token to read the game with (default $DATAMONSTERS_TOKEN); a spectator's will do for a public game")
	commitment := fs.String("commitment", "", "the commitment you saw while the game ran, in hex: it must be the one checked")
	save := fs.String("save", "", "with --url, write what was read to this file, to replay it later without the server")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	var rec replayRecord
	var err error
	if *base != "" {
		tok := *token
		if tok == "" {
			tok = getenv("DATAMONSTERS_TOKEN")
		}
		rec, err = fetchRecord(strings.TrimRight(*base, "/"), fs.Arg(0), tok)
		if err == nil && *save != "" {
			var data []byte
			data, err = json.MarshalIndent(rec, "", " ")
			if err == nil {
				err = os.WriteFile(*save, append(data, '\n'), 0o644)
			}
		}
	} else {
		rec, err = readRecord(fs.Arg(0))
	}
	if err != nil {
		fmt.Fprintln(stderr, "datamonsters replay:", err)
		return 2
	}
	report, err := checkRecord(rec, strings.ToLower(strings.TrimSpace(*commitment)))
	fmt.Fprint(stdout, report)
	if err != nil {
		fmt.Fprintln(stderr, "datamonsters replay: FAIL:", err)
		return 1
	}
	fmt.Fprintln(stdout, "OK")
	return 0
}

// readRecord reads a record saved with --save, or a bare action log.
func readRecord(path string) (replayRecord, error) {
	var rec replayRecord
	data, err := os.ReadFile(path)
	if err != nil {
		return rec, err
	}
	var probe struct {
		Log     json.RawMessage `json:"log"`
		Actions json.RawMessage `json:"actions"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return rec, fmt.Errorf("%s: %w", path, err)
	}
	if probe.Actions != nil {
		return replayRecord{Log: data}, nil
	}
	if err := json.Unmarshal(data, &rec); err != nil || rec.Log == nil {
		return rec, fmt.Errorf("%s: neither a record saved by datamonsters replay --save nor an action log", path)
	}
	return rec, nil
}

// fetchRecord reads game id's detail, action log and event log from the
// server at base.
func fetchRecord(base, id, token string) (replayRecord, error) {
	var rec replayRecord
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		return rec, fmt.Errorf("game id %q: want a number", id)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	get := func(path string) ([]byte, error) {
		r, err := http.NewRequest(http.MethodGet, base+path, nil)
		if err != nil {
			return nil, err
		}
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := client.Do(r)
		if err != nil {
			return nil, err
		}
		defer res.Body.Close()
		body, err := io.ReadAll(io.LimitReader(res.Body, 256<<20))
		if err != nil {
			return nil, err
		}
		if res.StatusCode != http.StatusOK {
			var p struct{ Detail, Code string }
			json.Unmarshal(body, &p)
			return nil, fmt.Errorf("GET %s: %s: %s (%s)", path, res.Status, p.Detail, p.Code)
		}
		return body, nil
	}
	var err error
	if rec.Game, err = get("/v1/games/" + id); err != nil {
		return rec, err
	}
	if rec.Log, err = get("/v1/games/" + id + "/actions"); err != nil {
		return rec, err
	}
	for after := int64(0); ; {
		body, err := get(fmt.Sprintf("/v1/games/%s/events?after=%d&limit=500", id, after))
		if err != nil {
			return rec, err
		}
		var page struct {
			Events    []json.RawMessage `json:"events"`
			NextAfter int64             `json:"next_after"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return rec, fmt.Errorf("event log: %w", err)
		}
		rec.Events = append(rec.Events, page.Events...)
		if page.NextAfter == after {
			return rec, nil
		}
		after = page.NextAfter
	}
}

// canonical is v as JSON after a round trip through T, so that two
// encodings of the same value compare equal.
func canonical[T any](data []byte) (string, error) {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return "", err
	}
	out, err := json.Marshal(v)
	return string(out), err
}

// sameFacts reports whether the replay's event got (JSON) states every
// fact of the logged event want: the same fields with the same values,
// but for the text, which each version of the service words as it does
// (a sentence fixed later), and for fields the log does not have (a
// detail a later version adds, such as the cards a cancelled event
// names). Every field the log has must be in the replay, with its value.
func sameFacts(got, want string) bool {
	var g, w map[string]any
	if json.Unmarshal([]byte(got), &g) != nil || json.Unmarshal([]byte(want), &w) != nil {
		return false
	}
	delete(g, "text")
	delete(w, "text")
	for k := range g {
		if _, ok := w[k]; !ok {
			delete(g, k)
		}
	}
	a, _ := json.Marshal(g)
	b, _ := json.Marshal(w)
	return string(a) == string(b)
}

// checkRecord replays rec and returns a report of the checks passed, and
// the first that failed. want, if not empty, is the commitment the caller
// saw while the game ran.
func checkRecord(rec replayRecord, want string) (string, error) {
	var report bytes.Buffer
	var log play.ActionLog
	if err := json.Unmarshal(rec.Log, &log); err != nil {
		return "", fmt.Errorf("action log: %w", err)
	}
	var g *replayGame
	if rec.Game != nil {
		g = new(replayGame)
		if err := json.Unmarshal(rec.Game, g); err != nil {
			return "", fmt.Errorf("game detail: %w", err)
		}
		if g.ID != log.GameID {
			return "", fmt.Errorf("the game detail is of game %d, the action log of game %d", g.ID, log.GameID)
		}
	}
	name := fmt.Sprintf("game %d", log.GameID)

	// 1. The commitment.
	f := log.Fairness
	if f == nil {
		return "", fmt.Errorf("%s has no commitment: it started before verifiable shuffles, and its randomness cannot be checked", name)
	}
	if f.Secret == nil || f.Salt == nil {
		return "", fmt.Errorf("%s: the action log reveals no secret", name)
	}
	secret, err := engine.ParseSecret(*f.Secret)
	if err != nil {
		return "", fmt.Errorf("%s: secret: %w", name, err)
	}
	salt, err := engine.ParseSecret(*f.Salt)
	if err != nil {
		return "", fmt.Errorf("%s: salt: %w", name, err)
	}
	got := engine.Commitment(secret, salt)
	switch {
	case got != f.Commitment:
		return "", fmt.Errorf("%s: commitment: SHA-256(salt || secret) is %s, the game published %s", name, got, f.Commitment)
	case g != nil && (g.Fairness == nil || g.Fairness.Commitment != got):
		return "", fmt.Errorf("%s: commitment: the game detail shows %+v, the action log %s", name, g.Fairness, got)
	case want != "" && want != got:
		return "", fmt.Errorf("%s: commitment: the revealed secret and salt give %s, not the %s you saw", name, got, want)
	}
	fmt.Fprintf(&report, "%s: commitment %s matches the revealed secret and salt\n", name, got)

	// 2. The setup.
	setup := engine.Setup{Secret: secret, Salt: salt, Mode: log.Setup.Mode, Office: log.Setup.Office, Policy: log.Setup.Policy}
	var decks []engine.Deck
	for i, s := range log.Setup.Seats {
		if s.Seat != i {
			return report.String(), fmt.Errorf("%s: setup: seat %d listed as seat %d", name, i, s.Seat)
		}
		setup.Players = append(setup.Players, engine.SeatSetup{Name: s.Name, Deck: s.Deck})
		decks = append(decks, s.Deck)
	}
	if setup.Office {
		if log.Setup.OfficeDeck == nil {
			return report.String(), fmt.Errorf("%s: setup: an office game without its office deck", name)
		}
		merged, _ := json.Marshal(engine.Standard().OfficeDeck(decks))
		given, _ := json.Marshal(log.Setup.OfficeDeck)
		if string(merged) != string(given) {
			return report.String(), fmt.Errorf("%s: setup: the office deck is not the seats' decks merged", name)
		}
		setup.OfficeDeck = *log.Setup.OfficeDeck
	}
	s, startEvents, err := engine.NewGame(setup)
	if err != nil {
		return report.String(), fmt.Errorf("%s: setup: %w", name, err)
	}

	// 3. The actions, submission by submission, against the event log.
	reader := engine.Spectator
	if g != nil && g.YourSeat != nil {
		reader = *g.YourSeat
	}
	logged := map[int64][]string{} // the event log by version, canonical
	var versions []int64
	for i, raw := range rec.Events {
		var e replayEvent
		if err := json.Unmarshal(raw, &e); err != nil {
			return report.String(), fmt.Errorf("%s: event log entry %d: %w", name, i, err)
		}
		c, err := canonical[engine.Event](e.Event)
		if err != nil {
			return report.String(), fmt.Errorf("%s: event %d: %w", name, e.Seq, err)
		}
		if _, ok := logged[e.Version]; !ok {
			versions = append(versions, e.Version)
		}
		logged[e.Version] = append(logged[e.Version], c)
	}
	reworded := 0 // events the replay words otherwise than the log
	sameEvents := func(version int64, events []engine.Event) error {
		if rec.Events == nil {
			return nil
		}
		want := logged[version]
		delete(logged, version)
		var got []string
		for _, e := range engine.EventsFor(events, reader) {
			data, _ := json.Marshal(e)
			got = append(got, string(data))
		}
		for i := range max(len(got), len(want)) {
			a, b := "(none)", "(none)"
			if i < len(got) {
				a = got[i]
			}
			if i < len(want) {
				b = want[i]
			}
			if a != b {
				if sameFacts(a, b) {
					reworded++
					continue
				}
				return fmt.Errorf("event %d of version %d: the replay gives %s, the game's event log %s", i+1, version, a, b)
			}
		}
		return nil
	}
	if len(versions) > 0 {
		if err := sameEvents(versions[0], startEvents); err != nil {
			return report.String(), fmt.Errorf("%s: the setup: %w", name, err)
		}
	}
	submissions := 0
	s, err = engine.Replay(s, log.Entries(), func(first engine.LoggedAction, events []engine.Event, _ *engine.State) error {
		submissions++
		if err := sameEvents(first.Version, events); err != nil {
			return &engine.ReplayError{At: first, Err: err}
		}
		return nil
	})
	if err != nil {
		return report.String(), fmt.Errorf("%s: %w", name, err)
	}
	for _, v := range versions {
		if _, left := logged[v]; left {
			return report.String(), fmt.Errorf("%s: the event log has events at version %d, which no action of the log made", name, v)
		}
	}
	if !s.Over() {
		return report.String(), fmt.Errorf("%s: the action log ends before the game does", name)
	}
	seen := "the event log was not read"
	if rec.Events != nil {
		seen = fmt.Sprintf("the events match the event log as seat %d sees it", reader)
		if reader == engine.Spectator {
			seen = "the events match the event log as a spectator sees it"
		}
		if reworded > 0 {
			seen += fmt.Sprintf(" (%d of them worded, or with details added, as this version of the service writes them)", reworded)
		}
	}
	fmt.Fprintf(&report, "%s: %d actions in %d submissions replay; %s\n", name, len(log.Actions), submissions, seen)

	// 4. The end: state, winners, scores, the reader's view.
	var scores []int
	for _, p := range s.View(engine.Spectator).Players {
		scores = append(scores, p.Points)
	}
	winners := s.Winners
	switch {
	case s.Hash() != log.FinalHash:
		return report.String(), fmt.Errorf("%s: the final state's hash is %s, the game says %s", name, s.Hash(), log.FinalHash)
	case !slices.Equal(winners, log.Winners) || g != nil && !slices.Equal(winners, g.Winners):
		return report.String(), fmt.Errorf("%s: winners: the replay gives %v, the game says %v", name, winners, log.Winners)
	case !slices.Equal(scores, log.Scores):
		return report.String(), fmt.Errorf("%s: scores: the replay gives %v, the game says %v", name, scores, log.Scores)
	}
	if g != nil {
		if g.Status != "over" {
			return report.String(), fmt.Errorf("%s is %s, not over", name, g.Status)
		}
		view, _ := json.Marshal(s.View(reader))
		shown, err := canonical[engine.View](g.View)
		if err != nil || shown != string(view) {
			return report.String(), fmt.Errorf("%s: the final view differs from the game detail's", name)
		}
	}
	fmt.Fprintf(&report, "%s: final state %s matches; winners %v, scores %v\n", name, log.FinalHash, winners, scores)
	return report.String(), nil
}
