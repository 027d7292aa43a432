package api

import (
	"fmt"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

// TestETagShape holds the ETag of a game to the shape clients have
// stored: "g<id>-v<version>-s<seat>-d<deadline in µs, 0 for none>". A
// client that sends it back in If-None-Match after an upgrade still gets
// its 304.
func TestETagShape(t *testing.T) {
	at := time.Date(2026, 12, 5, 9, 30, 0, 123456000, time.UTC)
	for _, c := range []struct {
		g    models.Game
		seat int
	}{
		{models.Game{ID: 1, Version: 0}, -1},
		{models.Game{ID: 42, Version: 17, DeadlineAt: &at}, 3},
		{models.Game{ID: 9007199254740993, Version: 1 << 40}, 0},
	} {
		want := fmt.Sprintf(`"g%d-v%d-s%d-d%d"`, c.g.ID, c.g.Version, c.seat, deadlineKey(&c.g))
		if got := etagOf(&c.g, c.seat); got != want {
			t.Errorf("etagOf(game %d, seat %d) = %s, want %s", c.g.ID, c.seat, got, want)
		}
	}
	if got, want := etagOf(&models.Game{ID: 42, Version: 17, DeadlineAt: &at}, 3), `"g42-v17-s3-d`+fmt.Sprint(at.UnixMicro())+`"`; got != want {
		t.Errorf("etagOf = %s, want %s", got, want)
	}
}
