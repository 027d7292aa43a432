package play

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
)

// TestLoggedActionJSON: an entry of the action log is written in the API's
// words (a standing answer shows pass and plays, [] for none; the time in
// whole seconds), and reads back into the same entry, as datamonsters
// replay reads it.
func TestLoggedActionJSON(t *testing.T) {
	at := time.Date(2026, 12, 5, 22, 53, 25, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		action engine.Action
		want   string
	}{
		{"place", engine.Action{Type: engine.ActPlace, Card: "c7"},
			`{"seq":3,"version":9,"seat":1,"action":{"type":"place","card":"c7"},"created_at":"2026-12-05T22:53:25Z"}`},
		{"standing, no plays", engine.Action{Type: engine.ActStanding, Standing: &engine.Standing{}},
			`{"seq":3,"version":9,"seat":1,"action":{"type":"standing","standing":{"pass":false,"plays":[]}},"created_at":"2026-12-05T22:53:25Z"}`},
		{"standing, a play", engine.Action{Type: engine.ActStanding, Standing: &engine.Standing{Pass: true, Plays: []engine.StandingPlay{{On: "attack", Card: "c2"}}}},
			`{"seq":3,"version":9,"seat":1,"action":{"type":"standing","standing":{"pass":true,"plays":[{"on":"attack","card":"c2"}]}},"created_at":"2026-12-05T22:53:25Z"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := LoggedAction{LoggedAction: engine.LoggedAction{Seq: 3, Version: 9, Seat: 1, Action: tc.action}, CreatedAt: at}
			got, err := json.Marshal(in)
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %s (%v), want %s", got, err, tc.want)
			}
			var back LoggedAction
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if back.Action.Standing != nil && len(back.Action.Standing.Plays) == 0 {
				back.Action.Standing.Plays = tc.action.Standing.Plays // [] reads back as an empty list
			}
			if !reflect.DeepEqual(back.LoggedAction, in.LoggedAction) || !back.CreatedAt.Equal(at) {
				t.Fatalf("read back %+v, want %+v", back, in)
			}
		})
	}
}
