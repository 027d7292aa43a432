package accounts_test

import (
	"strings"
	"testing"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/refusal"
)

// TestParseClock: a time of day as a 24-hour clock and a browser's time
// field write it; anything else is refused, naming the field.
func TestParseClock(t *testing.T) {
	for in, want := range map[string]int{"00:00": 0, "7:05": 425, "07:05": 425, "22:00": 1320, "23:59": 1439, "22:00:00": 1320, " 06:30 ": 390} {
		if got, err := accounts.ParseClock("start", in); err != nil || got != want {
			t.Errorf("ParseClock(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "24:00", "12:60", "7", "07:5", "007:00", "-1:00", "+1:00", "1:+5", "22:00:30", "ten", "22.00", "10:00 pm"} {
		_, err := accounts.ParseClock("end", in)
		if refusal.KindOf(err) != refusal.Invalid || !strings.HasPrefix(err.(*refusal.Error).Detail, "end: ") {
			t.Errorf("ParseClock(%q): %v, want a refusal naming end", in, err)
		}
	}
	if got := accounts.ClockText(425); got != "07:05" {
		t.Errorf("ClockText(425) = %q", got)
	}
}
