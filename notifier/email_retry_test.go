package notifier

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/internal/servetest"
	"github.com/datamonsters/turns/models"
	smtp "github.com/emersion/go-smtp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	gomail "github.com/wneessen/go-mail"
)

// TestSMTPDroppedSessionIsTemporary: a session the server drops after
// MAIL FROM, by closing it (EOF) or by resetting it, fails the send with a
// temporary error; only a 5xx reply is permanent (TestSMTPRejections).
func TestSMTPDroppedSessionIsTemporary(t *testing.T) {
	t.Parallel()
	s := startSink(t, sinkOptions{})
	s.dropAfterMail(time.Minute)
	for i := range 2 { // EOF, then a reset
		err := sendOne(t, s.config(), turnMessage(Address{"", "ana@example.org"}))
		var se *gomail.SendError
		if !errors.As(err, &se) || se.Reason != gomail.ErrSMTPMailFrom {
			t.Fatalf("drop %d: %v, want a MAIL FROM failure", i+1, err)
		}
		if IsPermanent(err) {
			t.Errorf("drop %d: %v is called permanent", i+1, err)
		}
	}
	if n := s.drops.Load(); n != 2 {
		t.Fatalf("%d sessions dropped, want 2", n)
	}
}

// emailJobs counts the outbox's email jobs by state.
func emailJobs(t *testing.T, o *Outbox) map[rivertype.JobState]int {
	t.Helper()
	res, err := o.Client().JobList(context.Background(), river.NewJobListParams().Kinds(emailKind).First(10000))
	if err != nil {
		t.Fatal(err)
	}
	out := map[rivertype.JobState]int{}
	for _, j := range res.Jobs {
		out[j.State]++
	}
	return out
}

// retryEnv is an outbox env whose email retries come due at once.
func retryEnv(t *testing.T, d models.Dialect) (*outboxEnv, *Outbox) {
	e := newOutboxEnv(t, d)
	e.cfg.Email.Timeout = time.Second
	e.cfg.Now = nil // River's real clock, so that the retries come due
	e.cfg.EmailRetryBase = 100 * time.Millisecond
	return e, e.outbox(t, true)
}

// TestFailedEmailAttemptIsLogged: an email whose first send fails is
// retried and delivered, and the failed attempt is logged at warning level
// with its kind, attempt and reason; an email the server refuses for good
// is given up, and that is logged too, with the server's reply
// (River itself logs both below what the outbox passes on): a delayed or
// a lost email says why.
func TestFailedEmailAttemptIsLogged(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		logged := func(t *testing.T, log *servetest.Buffer, msg string, want ...string) {
			t.Helper()
			var lines []string
			for _, line := range strings.Split(log.String(), "\n") {
				if strings.Contains(line, `msg="`+msg+`"`) {
					lines = append(lines, line)
				}
			}
			if len(lines) == 0 {
				t.Fatalf("no %q logged; the log:\n%s", msg, log.String())
			}
			for _, line := range lines {
				for _, w := range want {
					if !strings.Contains(line, w) {
						t.Errorf("a line lacks %q: %s", w, line)
					}
				}
			}
		}
		env := func(t *testing.T) (*outboxEnv, *Outbox, *servetest.Buffer) {
			e := newOutboxEnv(t, d)
			log := &servetest.Buffer{}
			e.cfg.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn}))
			e.cfg.Email.Timeout = time.Second
			e.cfg.Now = nil // River's real clock, so that the retry comes due
			e.cfg.EmailRetryBase = 100 * time.Millisecond
			return e, e.outbox(t, true), log
		}
		t.Run("retried", func(t *testing.T) {
			e, _, log := env(t)
			e.sink.dropAfterMail(time.Second)
			e.createGame(t) // two invitations
			e.waitMail(t, 2)
			logged(t, log, "job attempt failed", "level=WARN", "kind="+emailKind, "attempt=", "error=", "smtp")
		})
		t.Run("given up", func(t *testing.T) {
			e, o, log := env(t)
			e.sink.failRcpts(1000, &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"})
			e.createGame(t)
			waitFor(t, "both email jobs cancelled", func() bool { return emailJobs(t, o)[rivertype.JobStateCancelled] == 2 })
			logged(t, log, "job given up", "level=WARN", "kind="+emailKind, "attempt=1", "no such user")
			if strings.Contains(log.String(), "job attempt failed") {
				t.Errorf("a refusal for good is logged as an attempt to retry:\n%s", log.String())
			}
		})
	})
}

// TestJobLog: the middleware logs nothing for a job that ends well or
// snoozes (an email waiting out quiet hours), and passes the snooze on.
func TestJobLog(t *testing.T) {
	log := &servetest.Buffer{}
	m := &jobLog{log: slog.New(slog.NewTextHandler(log, nil))}
	job := &rivertype.JobRow{ID: 7, Kind: emailKind, Attempt: 2}
	ctx := context.Background()
	if err := m.Work(ctx, job, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	var snooze *rivertype.JobSnoozeError
	if err := m.Work(ctx, job, func(context.Context) error { return river.JobSnooze(time.Minute) }); !errors.As(err, &snooze) {
		t.Fatalf("the snooze came back as %v", err)
	}
	if log.String() != "" {
		t.Fatalf("logged for a job that ended well or snoozed: %s", log.String())
	}
}

// TestOutboxSessionsDroppedAfterMailFrom: while the SMTP server drops
// every session after MAIL FROM (for 2 s), the emails committed meanwhile
// fail and are retried with backoff; every one is delivered afterwards,
// once, and no email job is cancelled or discarded.
func TestOutboxSessionsDroppedAfterMailFrom(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		e, o := retryEnv(t, d)
		e.sink.dropAfterMail(2 * time.Second)
		const games = 20 // two invitations each
		for range games {
			e.createGame(t)
		}
		waitFor(t, "every email delivered", func() bool {
			st := emailJobs(t, o)
			return len(e.sink.messages()) >= 2*games || st[rivertype.JobStateCancelled]+st[rivertype.JobStateDiscarded] > 0
		})
		time.Sleep(100 * time.Millisecond) // a duplicate would show up now
		st := emailJobs(t, o)
		if n := st[rivertype.JobStateCancelled] + st[rivertype.JobStateDiscarded]; n > 0 {
			t.Fatalf("%d of %d email jobs given up (%v) after %d dropped sessions", n, 2*games, st, e.sink.drops.Load())
		}
		ids := map[string]bool{}
		for _, m := range e.sink.messages() {
			ids[m.MessageID] = true
		}
		if n := len(e.sink.messages()); n != 2*games || len(ids) != 2*games {
			t.Fatalf("%d messages with %d Message-IDs, want %d of each", n, len(ids), 2*games)
		}
		if e.sink.drops.Load() == 0 {
			t.Fatal("no session was dropped: the test tested nothing")
		}
		t.Logf("%d emails delivered after %d dropped sessions", 2*games, e.sink.drops.Load())
	})
}

// TestOutboxSMTPReplyClasses: a 4xx reply to RCPT is retried until the
// server accepts; a 5xx reply cancels the email job, which is not retried.
func TestOutboxSMTPReplyClasses(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		t.Run("4xx", func(t *testing.T) {
			e, o := retryEnv(t, d)
			e.sink.failRcpts(4, &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try later"})
			e.createGame(t)
			waitFor(t, "both email jobs completed", func() bool { return emailJobs(t, o)[rivertype.JobStateCompleted] == 2 })
			if msgs := e.waitMail(t, 2); len(msgs) != 2 {
				t.Fatalf("%d messages, want 2", len(msgs))
			}
			if n := e.sink.rcptFailures.Load(); n >= 0 {
				t.Fatalf("%d 4xx replies left unused", n+1)
			}
		})
		t.Run("5xx", func(t *testing.T) {
			e, o := retryEnv(t, d)
			e.sink.failRcpts(1000, &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"})
			e.createGame(t)
			waitFor(t, "both email jobs cancelled", func() bool { return emailJobs(t, o)[rivertype.JobStateCancelled] == 2 })
			time.Sleep(300 * time.Millisecond) // a retry would come due now
			if n := 1000 - e.sink.rcptFailures.Load(); n != 2 {
				t.Fatalf("%d RCPTs refused, want 2: one attempt per email", n)
			}
			if n := len(e.sink.messages()); n != 0 {
				t.Fatalf("%d messages delivered", n)
			}
		})
	})
}

// TestSMTPDropAtRsetAfterAccept: a message the server accepted (250 after
// DATA) is sent, even when the session drops at the RSET that follows: a
// retry would send it twice.
func TestSMTPDropAtRsetAfterAccept(t *testing.T) {
	t.Parallel()
	s := startSink(t, sinkOptions{})
	s.dropRset.Store(true)
	if err := sendOne(t, s.config(), turnMessage(Address{"", "ana@example.org"})); err != nil {
		t.Fatalf("send: %v", err)
	}
	if n := s.accepted(); n != 1 {
		t.Fatalf("the sink accepted %d messages, want 1", n)
	}
}
