package play_test

import (
	"slices"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/play"
)

// TestNewsSince: the news of a seat are those of the changes after the
// version given, and none of the earlier ones.
func TestNewsSince(t *testing.T) {
	res, err := engine.RunScenario([]byte(`
players:
  - {name: ana, deck: [doodle-junior, glitchy-junior, data-lake, rapid-prototype]}
  - {name: ben, hand: [glitchy-junior, doodle-junior]}
active: 1
steps:
  - {do: place, card: glitchy-junior}
  - {do: place, card: doodle-junior}
  - {do: end_turn}
`))
	if err != nil || res.Failed() {
		t.Fatal(err, res.Failures)
	}
	var events []play.Event
	for _, e := range res.Events {
		events = append(events, play.Event{Seq: int64(len(events) + 1), Version: int64(e.Step + 1), Event: e.Event})
	}
	for _, tc := range []struct {
		since int64
		want  []string
	}{
		{1, []string{"ben placed Glitchy (Junior) in their Lab.", "ben placed Doodle (Junior) in their Lab.", "You drew Doodle (Junior) and Glitchy (Junior)."}},
		{2, []string{"ben placed Doodle (Junior) in their Lab.", "You drew Doodle (Junior) and Glitchy (Junior)."}},
		{3, []string{"You drew Doodle (Junior) and Glitchy (Junior)."}},
		{4, nil},
	} {
		if got := play.News(res.State.Table(), 0, events, tc.since); !slices.Equal(got, tc.want) {
			t.Errorf("since version %d: %q, want %q", tc.since, got, tc.want)
		}
	}
}
