package inbound_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/models"
)

// smtpDialog runs an SMTP session over TCP with the server at addr, as a
// client that writes its bytes as they are: each command, then the
// message raw as given (already dot-stuffed, with its end marker). It
// returns the server's answer to the end of the data, or an error when
// none came within wait.
func smtpDialog(addr, from, rcpt string, data []byte, wait time.Duration) (string, error) {
	c, err := net.DialTimeout("tcp", addr, wait)
	if err != nil {
		return "", err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	reply := func() (string, error) {
		c.SetReadDeadline(time.Now().Add(wait))
		var out strings.Builder
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return out.String(), err
			}
			out.WriteString(line)
			if len(line) < 4 || line[3] != '-' {
				return strings.TrimSpace(out.String()), nil
			}
		}
	}
	if _, err := reply(); err != nil {
		return "", fmt.Errorf("greeting: %w", err)
	}
	for _, cmd := range []string{"EHLO client.example.com", "MAIL FROM:<" + from + ">", "RCPT TO:<" + rcpt + ">", "DATA"} {
		fmt.Fprintf(c, "%s\r\n", cmd)
		if got, err := reply(); err != nil || got[0] != '2' && got[0] != '3' {
			return got, fmt.Errorf("%s: %q %v", cmd, got, err)
		}
	}
	if _, err := c.Write(data); err != nil {
		return "", err
	}
	got, err := reply()
	if err == nil {
		fmt.Fprintf(c, "QUIT\r\n")
	}
	return got, err
}

// TestDataEndAfterStrayCR: a message whose last line ends with a stray CR
// before its CRLF ("end\r\r\n.\r\n") is taken at once, as the end of its
// data says, and played; go-smtp v0.25.1's DATA reader missed that end
// and held the session until its read timeout, so the sender retried and
// finally bounced. The other stray CRs a body may hold (alone, in pairs,
// before a stuffed dot) change nothing else.
func TestDataEndAfterStrayCR(t *testing.T) {
	e := newEnv(t, models.SQLite)
	ana, ben := e.user("ana"), e.user("ben")
	id := e.game(ana, ben)
	g, _ := e.st.GameNoState(context.Background(), id)
	u := ana
	if g.Seats[1].Awaited {
		u = ben
	}
	em := e.latest(u)
	before := e.version(id)
	raw := string(replyMsg{From: u.Email, To: em.ReplyTo, Subject: "Re: " + em.Subject, InReplyTo: em.MessageID, Body: "end"}.raw())
	raw = strings.TrimSuffix(raw, "\r\n") + "\r\r\n.\r\n"
	start := time.Now()
	got, err := smtpDialog(e.smtp, u.Email, em.ReplyTo, []byte(raw), 5*time.Second)
	if err != nil || !strings.HasPrefix(got, "250") {
		t.Fatalf("after %v: %q, %v (the end of the data was not seen)", time.Since(start).Round(time.Millisecond), got, err)
	}
	if v := e.version(id); v != before+1 {
		t.Fatalf("the game went from version %d to %d, want one move played", before, v)
	}
	// Stray CRs inside a body, and a run of three before the end.
	for _, body := range []string{"x\r\r\n..y\r\n\r\r\r\n.\r\n", "a\rb\r\r\r\r\n.\r\n", "\r\r\n.\r\n"} {
		data := "From: " + u.Email + "\r\nTo: " + em.ReplyTo + "\r\nSubject: stray\r\nMessage-ID: <stray-" +
			fmt.Sprint(time.Now().UnixNano()) + "@example.com>\r\n\r\n" + body
		if got, err := smtpDialog(e.smtp, u.Email, em.ReplyTo, []byte(data), 5*time.Second); err != nil || !strings.HasPrefix(got, "250") {
			t.Fatalf("%q: %q, %v", body, got, err)
		}
	}
}
