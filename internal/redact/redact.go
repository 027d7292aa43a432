package redact

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
)

// NewLogger returns the service's logger: JSON lines on w from level up,
// through Handler.
func NewLogger(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(Handler(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})))
}

// emailPattern matches an email address in free text (an SMTP server's
// error, a River job error), loosely: a local part of the characters RFC
// 5322 allows unquoted, and a domain with at least one dot.
var emailPattern = regexp.MustCompile(`[A-Za-z0-9.!#$%&'*+/=?^_{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+`)

// Email returns addr with its local part cut to its first character and
// "***" ("a***@example.com"), enough to tell addresses of one domain apart
// in a log without keeping them. A string without "@" comes back as "***";
// "" stays "".
func Email(addr string) string {
	if addr == "" {
		return ""
	}
	local, domain, ok := strings.Cut(addr, "@")
	if !ok || local == "" {
		return "***"
	}
	return local[:1] + "***@" + domain
}

// Text returns s with every email address in it shortened by Email.
func Text(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	return emailPattern.ReplaceAllStringFunc(s, Email)
}

// keep lists the attributes whose values look like addresses and are not:
// the service's own Message-IDs ("g42.v17.your_turn.u3.email@dm.example"),
// which name the notification and no person.
var keep = map[string]bool{"message_id": true}

// Handler returns a handler that passes each record to h with every email
// address shortened by Email: in the message, in string values, and in the
// text of error and fmt.Stringer values, in groups too. Other values go
// through as they are.
func Handler(h slog.Handler) slog.Handler { return handler{h} }

type handler struct{ next slog.Handler }

func (h handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, Text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h handler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = attr(a)
	}
	return handler{h.next.WithAttrs(clean)}
}

func (h handler) WithGroup(name string) slog.Handler { return handler{h.next.WithGroup(name)} }

// attr returns a with its value's addresses shortened.
func attr(a slog.Attr) slog.Attr {
	if keep[a.Key] {
		return a
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if s := v.String(); strings.Contains(s, "@") {
			return slog.String(a.Key, Text(s))
		}
	case slog.KindGroup:
		as := v.Group()
		clean := make([]slog.Attr, len(as))
		for i, g := range as {
			clean[i] = attr(g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(clean...)}
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			if s := x.Error(); strings.Contains(s, "@") {
				return slog.String(a.Key, Text(s))
			}
		case fmt.Stringer:
			if s := x.String(); strings.Contains(s, "@") {
				return slog.String(a.Key, Text(s))
			}
		case []byte:
			return slog.String(a.Key, Text(string(x)))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
