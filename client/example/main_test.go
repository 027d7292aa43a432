package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/internal/servetest"
)

func TestMain(m *testing.M) { servetest.Main(m) }

// TestExamplePlaysAGame runs the example against the built server, started
// as `datamonsters serve` on a fresh SQLite file: it registers, plays a
// whole game against the bot through the generated client alone, and says
// who won.
func TestExamplePlaysAGame(t *testing.T) {
	if testing.Short() {
		t.Skip("a whole game against the bot")
	}
	data := t.TempDir()
	srv := servetest.Start(t, []string{"PATH=" + os.Getenv("PATH"), "DATA_DIR=" + data, "MAIL_DIR=" + data + "/mail"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var out strings.Builder
	start := time.Now()
	if err := run(ctx, srv.Base, &out); err != nil {
		t.Fatalf("%v\nsaid:\n%s\nthe server's log:\n%s", err, out.String(), srv.Stderr)
	}
	t.Logf("in %v:\n%s", time.Since(start).Round(time.Millisecond), out.String())
	said := out.String()
	for _, want := range []string{"registered\n", "started a game against the bot\n", "the game is over after ", "Big Data Points\n"} {
		if !strings.Contains(said, want) {
			t.Errorf("the example did not say %q:\n%s", want, said)
		}
	}
	if !strings.Contains(said, "we won\n") && !strings.Contains(said, "the bot won\n") {
		t.Errorf("no winner said:\n%s", said)
	}
}
