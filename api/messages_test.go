package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/notifier"
	playpath "github.com/datamonsters/turns/play"
)

// message is a message as the API gives it.
type message struct {
	ID     int64   `json:"id"`
	Seat   int     `json:"seat"`
	From   string  `json:"from"`
	ToSeat *int    `json:"to_seat"`
	To     *string `json:"to"`
	Text   string  `json:"text"`
}

// same reports whether two messages say the same.
func same(a, b message) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func messagesPath(id int64) string { return fmt.Sprintf("/v1/games/%d/messages", id) }

// say posts p's message to the table (to < 0) or to seat to.
func (e *env) say(id int64, p *player, text string, to int) message {
	e.t.Helper()
	body := map[string]any{"text": text}
	if to >= 0 {
		body["to_seat"] = to
	}
	var m message
	e.must(201, req{Method: "POST", Path: messagesPath(id), Token: p.Access, Body: body}).decode(e.t, &m)
	return m
}

// messages lists the messages of game id as p reads them, all pages.
func (e *env) messages(id int64, p *player) []message {
	e.t.Helper()
	var out []message
	cursor := ""
	for {
		var page struct {
			Messages   []message `json:"messages"`
			NextCursor *string   `json:"next_cursor"`
		}
		path := messagesPath(id) + "?limit=2"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		e.must(200, req{Method: "GET", Path: path, Token: p.Access}).decode(e.t, &page)
		out = append(out, page.Messages...)
		if page.NextCursor == nil {
			return out
		}
		cursor = *page.NextCursor
	}
}

// nextOf reads ch until an event of type typ, which it returns.
func nextOf(t *testing.T, ch <-chan sseEvent, typ string) sseEvent {
	t.Helper()
	for {
		if ev := next(t, ch); ev.Type == typ {
			return ev
		}
	}
}

// quiet fails if ch carries an event of type typ within d.
func quiet(t *testing.T, ch <-chan sseEvent, typ string, d time.Duration, who string) {
	t.Helper()
	end := time.After(d)
	for {
		select {
		case ev, ok := <-ch:
			if ok && ev.Type == typ {
				t.Errorf("%s got a %s event: %s", who, typ, ev.Data)
			}
			if !ok {
				return
			}
		case <-end:
			return
		}
	}
}

// mailText is the text and HTML parts of a sunk email, decoded.
func mailText(t *testing.T, m sunkMail) (text, html string) {
	t.Helper()
	_, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	r := multipart.NewReader(strings.NewReader(m.Body), params["boundary"])
	for {
		p, err := r.NextPart()
		if err != nil {
			return text, html
		}
		b, _ := io.ReadAll(p)
		switch ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); ct {
		case "text/plain":
			text = strings.ReplaceAll(string(b), "\r\n", "\n")
		case "text/html":
			html = strings.ReplaceAll(string(b), "\r\n", "\n")
		}
	}
}

// mailsTo are the emails to p since the first skip ones.
func (e *notifyEnv) mailsTo(p *player, skip int) []sunkMail {
	var out []sunkMail
	for _, m := range e.mail.all()[skip:] {
		if m.To[0] == p.Name+"@example.com" {
			out = append(out, m)
		}
	}
	return out
}

// webhookTo registers a webhook of p at rcv.
func (e *env) webhookTo(p *player, rcv *receiver) {
	e.t.Helper()
	e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: p.Access, Body: map[string]any{"url": rcv.srv.URL + "/" + p.Name}})
}

// hooked are the bodies of the message deliveries to p's webhook at rcv.
func hooked(rcv *receiver, p *player) []string {
	var out []string
	for _, c := range rcv.all() {
		if strings.Contains(string(c.Body), `"event":"message"`) && strings.Contains(string(c.Body), `"recipient":"`+p.Name+`"`) {
			out = append(out, string(c.Body))
		}
	}
	return out
}

// hostile is a message that would be markup, and a header, if it were not
// escaped.
const hostile = "<script>alert(1)</script> & <b>gg</b>\nBcc: all@example.com"

// TestMessageReachesThePlayer: ana's message, posted through the API,
// reaches bob on his notification stream, on the game's stream, at his
// webhook, and in his next email of the game (not in one of its own
// unless he asks for that), escaped, and it changes no version of the
// game. A message an email showed is not shown by the next one.
func TestMessageReachesThePlayer(t *testing.T) {
	eachNotifyDB(t, true, func(t *testing.T, e *notifyEnv) {
		ana, bob := e.register("ana"), e.register("bob")
		players := []*player{ana, bob}
		rcv := startReceiver(t)
		e.webhookTo(bob, rcv)
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		nch, nstop := e.openStream(t, "/v1/notifications/stream", bob.Access, "")
		gch, gstop := e.openStream(t, fmt.Sprintf("/v1/games/%d/stream", g.ID), bob.Access, "")
		waitFor(t, "bob's streams", func() bool {
			return e.hub.Subscribers(notifier.UserTopic(strconv.FormatInt(bob.ID, 10))) > 0 &&
				e.hub.Subscribers(notifier.GameSeatTopic(g.ID, 1)) > 0
		})
		e.drain(t) // the emails of the start are sent: the next one is bob's turn's
		before := e.getGame(g.ID, ana).Version
		m := e.say(g.ID, ana, hostile, -1)
		if m.From != "ana" || m.Seat != 0 || m.ToSeat != nil || m.To != nil || m.Text != hostile {
			t.Fatalf("posted %+v", m)
		}
		if v := e.getGame(g.ID, ana).Version; v != before {
			t.Errorf("a message moved the game from version %d to %d", before, v)
		}

		ev := nextOf(t, nch, "message")
		if err := checkPayload(t, "Notification", []byte(ev.Data)); err != nil {
			t.Errorf("the message notification breaks openapi.yaml: %v\n%s", err, ev.Data)
		}
		var n struct {
			Data struct {
				From, Text string
				MessageID  int64 `json:"message_id"`
				Private    bool
			}
		}
		json.Unmarshal([]byte(ev.Data), &n)
		if n.Data.From != "ana" || n.Data.Text != hostile || n.Data.MessageID != m.ID || n.Data.Private {
			t.Errorf("bob's notification: %s", ev.Data)
		}
		gev := nextOf(t, gch, "message")
		if err := checkPayload(t, "Message", []byte(gev.Data)); err != nil || gev.ID != "" {
			t.Errorf("the game stream's message (id %q) breaks openapi.yaml: %v\n%s", gev.ID, err, gev.Data)
		}
		var gm message
		json.Unmarshal([]byte(gev.Data), &gm)
		if !same(gm, m) {
			t.Errorf("on the game stream %+v, posted %+v", gm, m)
		}
		waitFor(t, "bob's webhook", func() bool { return len(hooked(rcv, bob)) == 1 })
		body := hooked(rcv, bob)[0]
		if err := checkPayload(t, "WebhookBody", []byte(body)); err != nil || !strings.Contains(body, `"message_id":`+strconv.FormatInt(m.ID, 10)) {
			t.Errorf("the webhook delivery: %v\n%s", err, body)
		}
		if got := e.messages(g.ID, bob); len(got) != 1 || !same(got[0], m) {
			t.Errorf("bob lists %+v", got)
		}

		// Off the streams, bob gets no email of the message's own: it waits
		// for his next email of the game.
		nstop()
		gstop()
		waitFor(t, "bob off the streams", func() bool {
			return e.hub.Subscribers(notifier.UserTopic(strconv.FormatInt(bob.ID, 10))) == 0 &&
				e.hub.Subscribers(notifier.GameSeatTopic(g.ID, 1)) == 0
		})
		e.drain(t)
		for _, mail := range e.mailsTo(bob, 0) {
			if strings.Contains(mail.Header.Get("Message-Id"), ".message.") {
				t.Errorf("bob got an email of the message's own: %s", mail.Header.Get("Message-Id"))
			}
		}
		sent := len(e.mail.all())
		turnTo(t, e.env, g.ID, players, bob)
		e.drain(t)
		mails := e.mailsTo(bob, sent)
		if len(mails) == 0 {
			t.Fatal("bob got no email when his turn came")
		}
		text, html := mailText(t, mails[0])
		if !strings.Contains(text, "At the table") || !strings.Contains(text, "ana, ") ||
			!strings.Contains(text, "    <script>alert(1)</script> & <b>gg</b>\n    Bcc: all@example.com") {
			t.Errorf("bob's next email does not show the message:\n%s", text)
		}
		if strings.Contains(html, "<script>") || strings.Contains(html, "<b>gg") ||
			!strings.Contains(html, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;gg&lt;/b&gt;") {
			t.Errorf("the message is not escaped in the HTML:\n%s", html)
		}
		if mails[0].Header.Get("Bcc") != "" {
			t.Errorf("the message made a header: %v", mails[0].Header)
		}

		// The next email shows only what came since; with the message
		// kind on for email, a message comes in an email of its own.
		e.must(200, req{Method: "PUT", Path: "/v1/me/notification-preferences", Token: bob.Access,
			Body: map[string]any{"preferences": []map[string]any{{"kind": "message", "channel": "email", "enabled": true}}}})
		e.drain(t)
		sent = len(e.mail.all())
		e.say(g.ID, ana, "Second thoughts", -1)
		e.drain(t)
		mails = e.mailsTo(bob, sent)
		if len(mails) != 1 || !strings.Contains(mails[0].Header.Get("Message-Id"), ".message.") {
			t.Fatalf("with messages on for email, bob got %d emails", len(mails))
		}
		text, _ = mailText(t, mails[0])
		if !strings.Contains(text, "ana wrote to the table.") || !strings.Contains(text, "Second thoughts") || strings.Contains(text, "alert(1)") {
			t.Errorf("the message's own email:\n%s", text)
		}
		if mails[0].Header.Get("Subject") != e.mailsTo(bob, 0)[0].Header.Get("Subject") {
			t.Errorf("the message's email has the subject %q", mails[0].Header.Get("Subject"))
		}
	})
}

// TestPrivateMessage: in a game of three, ana's message to bob reaches
// bob and no one else: not cyd (stream, webhook, email, the list), nor a
// spectator of the public game, which shows the table's public messages
// to spectators.
func TestPrivateMessage(t *testing.T) {
	eachNotifyDB(t, true, func(t *testing.T, e *notifyEnv) {
		ana, bob, cyd, dan := e.register("ana"), e.register("bob"), e.register("cyd"), e.register("dan")
		rcv := startReceiver(t)
		e.webhookTo(bob, rcv)
		e.webhookTo(cyd, rcv)
		g := e.startGame(map[string]any{"mode": "fast", "spectator_messages": true}, ana, bob, cyd)
		var full struct {
			SpectatorMessages bool `json:"spectator_messages"`
		}
		e.must(200, req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d", g.ID), Token: dan.Access}).decode(t, &full)
		if !full.SpectatorMessages {
			t.Fatal("the game does not show its messages to spectators")
		}
		// cyd and dan on their streams; cyd asks for messages by email.
		e.must(200, req{Method: "PUT", Path: "/v1/me/notification-preferences", Token: cyd.Access,
			Body: map[string]any{"preferences": []map[string]any{{"kind": "message", "channel": "email", "enabled": true}}}})
		cch, _ := e.openStream(t, "/v1/notifications/stream", cyd.Access, "")
		cgch, _ := e.openStream(t, fmt.Sprintf("/v1/games/%d/stream", g.ID), cyd.Access, "")
		dch, _ := e.openStream(t, fmt.Sprintf("/v1/games/%d/stream", g.ID), dan.Access, "")
		bch, _ := e.openStream(t, "/v1/notifications/stream", bob.Access, "")
		waitFor(t, "the streams", func() bool {
			return e.hub.Subscribers(notifier.GameSeatTopic(g.ID, -1)) > 0 && e.hub.Subscribers(notifier.GameSeatTopic(g.ID, 2)) > 0 &&
				e.hub.Subscribers(notifier.UserTopic(strconv.FormatInt(cyd.ID, 10))) > 0
		})
		secret := e.say(g.ID, ana, "bob, cyd is about to win: hold the Market", 1)
		if secret.ToSeat == nil || *secret.ToSeat != 1 || secret.To == nil || *secret.To != "bob" {
			t.Fatalf("posted %+v", secret)
		}
		public := e.say(g.ID, ana, "Good luck, all", -1)

		// Bob has both (in any order: they may be published in parallel);
		// cyd and dan only the public one.
		got := nextOf(t, bch, "message").Data + nextOf(t, bch, "message").Data
		if !strings.Contains(got, "hold the Market") || !strings.Contains(got, `"private":true`) || !strings.Contains(got, "Good luck") {
			t.Errorf("bob's messages: %s", got)
		}
		for who, ch := range map[string]<-chan sseEvent{"cyd's stream": cch, "cyd's game stream": cgch, "dan's game stream": dch} {
			if ev := nextOf(t, ch, "message"); strings.Contains(ev.Data, "hold the Market") || !strings.Contains(ev.Data, "Good luck") {
				t.Errorf("%s: the first message is %s", who, ev.Data)
			}
		}
		e.drain(t)
		waitFor(t, "the webhooks", func() bool { return len(hooked(rcv, bob)) == 2 && len(hooked(rcv, cyd)) == 1 })
		if b := hooked(rcv, cyd)[0]; strings.Contains(b, "hold the Market") {
			t.Errorf("cyd's webhook got the private message: %s", b)
		}
		for _, m := range e.mail.all() {
			if text, html := mailText(t, m); m.To[0] != "bob@example.com" && (strings.Contains(text, "hold the Market") || strings.Contains(html, "hold the Market")) {
				t.Errorf("%s got the private message by email", m.To[0])
			}
		}
		if got := e.messages(g.ID, cyd); len(got) != 1 || !same(got[0], public) {
			t.Errorf("cyd lists %+v", got)
		}
		if got := e.messages(g.ID, dan); len(got) != 1 || !same(got[0], public) {
			t.Errorf("dan lists %+v", got)
		}
		if got := e.messages(g.ID, bob); len(got) != 2 || !same(got[0], secret) {
			t.Errorf("bob lists %+v", got)
		}
		// Nor may anyone write to a seat that is not another player's.
		for _, to := range []int{0, 3, -1} {
			r := e.do(req{Method: "POST", Path: messagesPath(g.ID), Token: ana.Access, Body: map[string]any{"text": "hi", "to_seat": to}})
			if r.Status != 422 || !strings.Contains(string(r.Body), "to_seat") {
				t.Errorf("to seat %d: %d %s", to, r.Status, r.Body)
			}
		}
		// A spectator writes nothing; a game that hides its messages from
		// spectators shows them none.
		if r := e.do(req{Method: "POST", Path: messagesPath(g.ID), Token: dan.Access, Body: map[string]any{"text": "hi"}}); r.Status != 403 {
			t.Errorf("a spectator posted: %d %s", r.Status, r.Body)
		}
		hidden := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		e.say(hidden.ID, ana, "just us", -1)
		if r := e.do(req{Method: "GET", Path: messagesPath(hidden.ID), Token: dan.Access}); r.Status != 403 || r.code(t) != "messages_hidden" {
			t.Errorf("a spectator read a game's messages it hides: %d %s", r.Status, r.Body)
		}
		gone := e.do(req{Method: "GET", Path: fmt.Sprintf("/v1/games/%d/messages", hidden.ID), Token: dan.Access})
		if strings.Contains(string(gone.Body), "just us") {
			t.Errorf("the hidden message leaked: %s", gone.Body)
		}
	})
}

// TestMutedGameSendsNone: bob mutes a game's messages: ana's message
// then reaches him by no channel (stream, game stream, webhook, email of
// its own or the next one), even with the message kind on for email;
// the list still has it. Unmuted, the next one reaches him again.
func TestMutedGameSendsNone(t *testing.T) {
	eachNotifyDB(t, true, func(t *testing.T, e *notifyEnv) {
		ana, bob := e.register("ana"), e.register("bob")
		rcv := startReceiver(t)
		e.webhookTo(bob, rcv)
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		e.must(200, req{Method: "PUT", Path: "/v1/me/notification-preferences", Token: bob.Access,
			Body: map[string]any{"preferences": []map[string]any{{"kind": "message", "channel": "email", "enabled": true}}}})
		var mute struct {
			GameID int64 `json:"game_id"`
			Muted  bool  `json:"muted"`
		}
		e.must(200, req{Method: "PUT", Path: messagesPath(g.ID) + "/mute", Token: bob.Access, Body: map[string]any{"muted": true}}).decode(t, &mute)
		if mute.GameID != g.ID || !mute.Muted {
			t.Fatalf("mute: %+v", mute)
		}
		nch, _ := e.openStream(t, "/v1/notifications/stream", bob.Access, "")
		gch, _ := e.openStream(t, fmt.Sprintf("/v1/games/%d/stream", g.ID), bob.Access, "")
		waitFor(t, "bob's streams", func() bool { return e.hub.Subscribers(notifier.GameSeatTopic(g.ID, 1)) > 0 })
		e.drain(t)
		sent := len(e.mail.all())
		e.say(g.ID, ana, "Can you hear me?", -1)
		quiet(t, nch, "message", time.Second, "bob's stream, muted,")
		quiet(t, gch, "message", 0, "bob's game stream, muted,")
		e.drain(t)
		if n := len(hooked(rcv, bob)); n != 0 {
			t.Errorf("bob's webhook got %d messages while muted", n)
		}
		ns, err := e.store.NotificationsAfter(context.Background(), bob.ID, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			if n.Kind == "message" {
				t.Errorf("a message notification was stored for bob, muted: %s", n.Body)
			}
		}
		if n := len(e.mailsTo(bob, sent)); n != 0 {
			t.Errorf("bob got %d emails while muted", n)
		}
		var list struct {
			Messages []message `json:"messages"`
			Muted    bool      `json:"muted"`
		}
		e.must(200, req{Method: "GET", Path: messagesPath(g.ID), Token: bob.Access}).decode(t, &list)
		if !list.Muted || len(list.Messages) != 1 {
			t.Errorf("bob's list: %+v", list)
		}
		// bob's next email shows none of it either.
		turnTo(t, e.env, g.ID, []*player{ana, bob}, ana)
		e.drain(t)
		for _, m := range e.mailsTo(bob, sent) {
			if text, _ := mailText(t, m); strings.Contains(text, "Can you hear me") || strings.Contains(text, "At the table") {
				t.Errorf("an email showed bob the muted game's message:\n%s", text)
			}
		}
		e.must(200, req{Method: "PUT", Path: messagesPath(g.ID) + "/mute", Token: bob.Access, Body: map[string]any{"muted": false}})
		e.say(g.ID, ana, "Now?", -1)
		if ev := nextOf(t, nch, "message"); !strings.Contains(ev.Data, "Now?") {
			t.Errorf("unmuted, bob got %s", ev.Data)
		}
		// Only a player mutes.
		cyd := e.register("cyd")
		if r := e.do(req{Method: "PUT", Path: messagesPath(g.ID) + "/mute", Token: cyd.Access, Body: map[string]any{"muted": true}}); r.Status != 403 {
			t.Errorf("a spectator muted: %d %s", r.Status, r.Body)
		}
	})
}

// TestMessageRefusals: a text too long, empty, with a NUL, a message
// past the rate limit, before the start: each refused with an error that
// says why (naming the field), and nothing posted.
func TestMessageRefusals(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast"}, ana, bob)
		long := strings.Repeat("é", playpath.MaxMessageRunes)
		e.say(g.ID, ana, long, -1) // 500 characters (1000 bytes) is the limit, not past it
		cases := []struct {
			name, body string
			status     int
			code, says string
		}{
			{"too long", `{"text":"` + long + `x"}`, 422, "message_too_long", "text: at most 500 characters; this one has 501"},
			{"huge", `{"text":"` + strings.Repeat("a", 60000) + `"}`, 422, "message_too_long", "this one has 60000"},
			{"empty", `{"text":""}`, 422, "invalid", "text: write something"},
			{"spaces", `{"text":" \n\t "}`, 422, "invalid", "text: write something"},
			{"NUL", `{"text":"a\u0000b"}`, 422, "invalid", "text"},
			{"to one of two", `{"text":"hi","to_seat":1}`, 422, "invalid", "to_seat"},
			{"unknown field", `{"text":"hi","html":"<b>"}`, 400, "bad_request", "html"},
		}
		for _, c := range cases {
			r := e.do(req{Method: "POST", Path: messagesPath(g.ID), Token: ana.Access, Body: c.body, NoContract: true})
			if r.Status != c.status || r.code(t) != c.code || !strings.Contains(string(r.Body), c.says) {
				t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
			}
		}
		if got := e.messages(g.ID, bob); len(got) != 1 {
			t.Errorf("after the refusals bob lists %d messages", len(got))
		}
		// The rate limit: a burst, then one every 15 seconds.
		for i := 1; i < playpath.MessageBurst; i++ {
			e.say(g.ID, ana, "burst "+strconv.Itoa(i), -1)
		}
		r := e.do(req{Method: "POST", Path: messagesPath(g.ID), Token: ana.Access, Body: map[string]any{"text": "one too many"}})
		if r.Status != 429 || r.code(t) != "rate_limited" || r.Header.Get("Retry-After") == "" || !strings.Contains(string(r.Body), "too many messages") {
			t.Fatalf("past the limit: %d %v %s", r.Status, r.Header, r.Body)
		}
		if p, l := r.Header.Get("RateLimit-Policy"), r.Header.Get("RateLimit"); p != `"messages";q=8;w=120` || !strings.HasPrefix(l, `"messages";r=0;t=`) {
			t.Errorf("past the limit, the RateLimit fields: %q, %q", p, l)
		}
		if got := e.messages(g.ID, bob); len(got) != playpath.MessageBurst || got[len(got)-1].Text == "one too many" {
			t.Errorf("after the limit bob lists %d messages", len(got))
		}
		// bob's own limit is his.
		e.say(g.ID, bob, "my turn to talk", -1)
		e.clock.Add(playpath.MessageEvery)
		e.say(g.ID, ana, "one more, later", -1)
		// An Idempotency-Key posts once.
		key := map[string]string{"Idempotency-Key": "say-once"}
		first := e.must(201, req{Method: "POST", Path: messagesPath(g.ID), Token: bob.Access, Body: map[string]any{"text": "once"}, Header: key})
		again := e.must(201, req{Method: "POST", Path: messagesPath(g.ID), Token: bob.Access, Body: map[string]any{"text": "once"}, Header: key})
		if string(first.Body) != string(again.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("the repeat: %s / %s", first.Body, again.Body)
		}
		n := 0
		for _, m := range e.messages(g.ID, ana) {
			if m.Text == "once" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("a repeated post was posted %d times", n)
		}
		// A batch of commands takes moves only: a message has its route.
		v := e.getGame(g.ID, ana).Version
		if r := e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: ana.Access, Body: map[string]any{"expected_version": v, "commands": []string{"say hi"}}}); r.Status != 422 || r.code(t) != "command_refused" || !strings.Contains(string(r.Body), "say") {
			t.Errorf("say in a command batch: %d %s", r.Status, r.Body)
		}
		// Before the start, nobody talks.
		var open game
		e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{"players": 2, "deck": deck(0)}}).decode(t, &open)
		if r := e.do(req{Method: "POST", Path: messagesPath(open.ID), Token: ana.Access, Body: map[string]any{"text": "hi"}}); r.Status != 409 || r.code(t) != "game_not_started" {
			t.Errorf("before the start: %d %s", r.Status, r.Body)
		}
	})
}
