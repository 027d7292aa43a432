package notifier

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
	"go.yaml.in/yaml/v3"
)

// TestChangeBuildsNoBoard: a game's changes, made through the play path,
// build no board inside their transactions (nor anywhere before a worker
// runs): the board builder's counter stays where it was across the start
// and a whole turn, and rises only when the workers send the emails, which
// show the boards. Not parallel: the counter is the package's.
func TestChangeBuildsNoBoard(t *testing.T) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		e.outbox(t, false) // writes the jobs, works none yet
		p := play.New(e.st, e.clock.Now, nil)
		ana, ben := e.users[0], e.users[1]
		before := boardsBuilt.Load()
		res, err := p.Create(ctx, ana.ID, play.NewGame{Players: 2, Mode: "fast", Invite: []string{ben.Username},
			Deck: play.DeckChoice{Prebuilt: "running-a-startup"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := res.Game.ID
		if _, err := p.Join(ctx, id, ben.ID, play.DeckChoice{Prebuilt: "working-for-the-enterprise"}, nil); err != nil {
			t.Fatal(err)
		}
		res, err = p.Start(ctx, id, ana.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		// The first player ends their turn: the other one's turn starts.
		first := res.State.Active
		version := res.Game.Version
		res, err = p.Submit(ctx, id, *res.Game.Seats[first].UserID, &version, []engine.Action{{Type: engine.ActEndTurn}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Done()
		if n := boardsBuilt.Load() - before; n != 0 {
			t.Fatalf("%d boards built by the changes themselves", n)
		}
		e.outbox(t, true)
		// The invitation, two game_started (the first player's with a
		// board) and the second player's your_turn (with a board).
		msgs := e.waitMail(t, 4)
		boards := 0
		for _, m := range msgs {
			if strings.Contains(parseMail(t, m.Data).Text, "What you can do now") {
				boards++
			}
		}
		if boards != 2 || boardsBuilt.Load()-before < 2 {
			t.Fatalf("%d emails with a board, %d boards built; want 2 and at least 2", boards, boardsBuilt.Load()-before)
		}
		if sent := mailKinds(t, msgs); !strings.Contains(strings.Join(sent, " "), string(KindYourTurn)) {
			t.Fatalf("emails %v, want a your_turn", sent)
		}
	})
}

// publicByDecoding is what publicJSON writes, made the slow way it was
// made before: decode the data into maps, rename and drop keys, encode
// again (which sorts each object's keys).
func publicByDecoding(raw []byte) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	var rename func(v any) any
	rename = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(x))
			for k, val := range x {
				if !omitted[k] {
					out[snakeCase(k)] = rename(val)
				}
			}
			return out
		case []any:
			for i := range x {
				x[i] = rename(x[i])
			}
		}
		return v
	}
	return json.Marshal(rename(v))
}

// TestPublicJSONAsDecoded: the stream's and webhooks' bodies are byte for
// byte what decoding and encoding the data again made: for every kind's
// sample, with hostile text in it, and for fuzzed JSON.
func TestPublicJSONAsDecoded(t *testing.T) {
	t.Parallel()
	for _, d := range samples() {
		c := d.base()
		c.Location, c.ReplyTo, c.TimeZone = time.UTC, "play-x@dm.example", "Europe/Paris"
		raw, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := publicJSON(raw)
		want, err2 := publicByDecoding(raw)
		if err != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %s %v\nwant %s %v", d.Kind(), got, err, want, err2)
		}
	}
	hostile := YourTurn{Common: Common{Recipient: "<b>\"Ana\"</b> & \u2028\\", GameID: "1"}, Since: []string{"\x00\t\n", "é\U0001F600"},
		Hand: []Card{{Name: `{"a":1}`, Lines: nil}}, Deadline: renderNow}
	raw, _ := json.Marshal(hostile)
	got, err := publicJSON(raw)
	want, _ := publicByDecoding(raw)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("hostile:\n got %s %v\nwant %s", got, err, want)
	}
}

// FuzzPublicJSON: whatever text and numbers a notification holds, its
// public body is what decoding and encoding it again made.
func FuzzPublicJSON(f *testing.F) {
	f.Add("Ana", "Bob drew 2 cards.", "Data Lake", 7, int64(259200000000000))
	f.Add("<b>&</b>", "\x00\u2028\"", "{\"a\":1}", -1, int64(-1))
	f.Fuzz(func(t *testing.T, name, line, card string, n int, d int64) {
		data := []Data{
			YourTurn{Common: Common{Recipient: name, GameID: line}, Turn: n, Since: []string{line, name}, Deadline: renderNow,
				Hand: []Card{{Name: card, Lines: []string{line}}}, Prompts: []Prompt{{Text: card, Options: []string{name}}},
				Board: &Board{Seat: n, Version: d, Lines: []Line{{N: n, Text: line, URL: card}}, Seats: []BoardSeat{{Name: name, Points: n}}}},
			Invitation{Common: Common{Recipient: card, UnsubscribeURL: line}, Inviter: name, Players: []string{name, card},
				Seats: n, TurnDeadline: time.Duration(d)},
		}
		for _, v := range data {
			raw, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := publicJSON(raw)
			want, err2 := publicByDecoding(raw)
			if err != nil || err2 != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s:\n got %s %v\nwant %s %v", raw, got, err, want, err2)
			}
		}
	})
}

// TestOmittedFieldsAreNotPublished: a field that publicJSON leaves out
// (omitted, by its Go name, in every object of every kind) is not a
// property of any published notification schema of openapi.yaml. A
// rendering-only field named like a published one would silently drop
// the published one from the stream and the webhooks.
func TestOmittedFieldsAreNotPublished(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for name, s := range doc.Components.Schemas {
		if !strings.HasPrefix(name, "Notification") && !strings.HasSuffix(name, "Data") && !strings.HasPrefix(name, "Webhook") {
			continue
		}
		checked++
		for k := range omitted {
			if _, ok := s.Properties[snakeCase(k)]; ok {
				t.Errorf("%s publishes %q, which publicJSON leaves out (its Go field %s is in omitted)", name, snakeCase(k), k)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d notification schemas found in openapi.yaml", checked)
	}
}
