package redact

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestEmail(t *testing.T) {
	for in, want := range map[string]string{
		"ana@example.com": "a***@example.com",
		"":                "",
		"nobody":          "***",
		"@example.com":    "***",
	} {
		if got := Email(in); got != want {
			t.Errorf("Email(%q) = %q, want %q", in, got, want)
		}
	}
	in := "smtp send g1.v2.your_turn.u3.email@dm.example: 550 5.1.1 <bob.smith+dm@mail.example.org>: no such user (ana@x.io)"
	want := "smtp send g***@dm.example: 550 5.1.1 <b***@mail.example.org>: no such user (a***@x.io)"
	if got := Text(in); got != want {
		t.Errorf("Text:\n got %s\nwant %s", got, want)
	}
}

type stringer string

func (s stringer) String() string { return string(s) }

// TestHandler: no address of a record reaches the log, wherever it is; a
// Message-ID stays whole.
func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	log = log.With("owner", "cyd@example.com").WithGroup("job")
	log.Debug("mail to dee@example.com failed",
		"to", "ana@example.com",
		"error", fmt.Errorf("send: %w", errors.New("550 <bob@example.com> unknown")),
		"who", stringer("eve@example.com"),
		"raw", []byte("fay@example.com"),
		slog.Group("rcpt", "addr", "gus@example.com", "n", 2),
		"message_id", "g1.v2.game_over.u3.email@dm.example",
		"count", 3)
	out := buf.String()
	for _, name := range []string{"ana", "bob", "cyd", "dee", "eve", "fay", "gus"} {
		if strings.Contains(out, name+"@example.com") {
			t.Errorf("%s's address is in the log: %s", name, out)
		}
		if !strings.Contains(out, name[:1]+"***@example.com") {
			t.Errorf("%s's address is not shortened in the log: %s", name, out)
		}
	}
	if !strings.Contains(out, `"message_id":"g1.v2.game_over.u3.email@dm.example"`) || !strings.Contains(out, `"count":3`) {
		t.Errorf("other values changed: %s", out)
	}
}
