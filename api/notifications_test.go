package api_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/datamonsters/turns/api"
	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/internal/ssetest"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
	playpath "github.com/datamonsters/turns/play"
	"github.com/emersion/go-smtp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// mailSink is an SMTP server on 127.0.0.1 that keeps what it accepts.
// While holding, it reads each message whole and then waits to answer
// until released.
type mailSink struct {
	host  string
	port  int
	mu    sync.Mutex
	msgs  []sunkMail
	hold  chan struct{} // non-nil: holding; closed on release
	held  int           // messages that arrived while holding
	conns int           // connections opened so far
	// busy counts, per recipient, the RCPTs still to refuse with a
	// temporary error that names the address, as a real server does.
	busy map[string]int
}

type sunkMail struct {
	To     []string
	Header mail.Header
	Body   string
	At     time.Time // when the whole message had arrived
	Conn   int       // its connection, numbered from 1 in the order they opened
}

// holdReplies makes the sink wait to answer the messages that arrive from
// now on, until release.
func (s *mailSink) holdReplies() {
	s.mu.Lock()
	s.hold = make(chan struct{})
	s.mu.Unlock()
}

// release answers the held messages (accepting them) and stops holding.
func (s *mailSink) release() {
	s.mu.Lock()
	if s.hold != nil {
		close(s.hold)
		s.hold = nil
	}
	s.mu.Unlock()
}

// heldCount is how many messages arrived while holding.
func (s *mailSink) heldCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

func startMailSink(t testing.TB) *mailSink {
	t.Helper()
	s := &mailSink{}
	srv := smtp.NewServer(s)
	srv.Domain = "localhost"
	srv.ErrorLog = log.New(io.Discard, "", 0)
	srv.MaxRecipients = 5
	srv.MaxMessageBytes = 1 << 20
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.host, s.port = "127.0.0.1", ln.Addr().(*net.TCPAddr).Port
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *mailSink) NewSession(*smtp.Conn) (smtp.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns++
	return &sinkSession{sink: s, conn: s.conns}, nil
}

// connCount is how many connections have opened so far.
func (s *mailSink) connCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

func (s *mailSink) all() []sunkMail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sunkMail(nil), s.msgs...)
}

type sinkSession struct {
	sink *mailSink
	conn int
	to   []string
}

func (ss *sinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (ss *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.sink.mu.Lock()
	busy := ss.sink.busy[to] > 0
	if busy {
		ss.sink.busy[to]--
	}
	ss.sink.mu.Unlock()
	if busy {
		return &smtp.SMTPError{Code: 450, EnhancedCode: smtp.EnhancedCode{4, 2, 1}, Message: "<" + to + ">: mailbox busy, try again later"}
	}
	ss.to = append(ss.to, to)
	return nil
}
func (ss *sinkSession) Data(r io.Reader) error {
	m, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(m.Body)
	if err != nil {
		return err // cut off: a real server does not take it either
	}
	got := sunkMail{To: ss.to, Header: m.Header, Body: string(body), At: time.Now(), Conn: ss.conn}
	ss.sink.mu.Lock()
	hold := ss.sink.hold
	if hold != nil {
		ss.sink.held++
	}
	ss.sink.mu.Unlock()
	if hold != nil {
		<-hold
	}
	ss.sink.mu.Lock()
	ss.sink.msgs = append(ss.sink.msgs, got)
	ss.sink.mu.Unlock()
	return nil
}
func (ss *sinkSession) Reset()        { ss.to = nil }
func (ss *sinkSession) Logout() error { return nil }

// notifyEnv is a server with the notification pipeline: an outbox on
// River delivering to a mail sink, webhooks and the live-stream hub.
type notifyEnv struct {
	*env
	mail *mailSink
	ob   *notifier.Outbox
	hub  *notifier.Hub
	api  *api.Server
	play *playpath.Service
}

// eachNotifyDB runs f in parallel subtests on a notifyEnv of each dialect
// under test: SQLite, and Postgres when TEST_DATABASE_URL is set (the
// test fails when it is set and the database cannot be reached).
func eachNotifyDB(t *testing.T, allowPrivate bool, f func(t *testing.T, e *notifyEnv)) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		f(t, newNotifyEnv(t, d, allowPrivate))
	})
}

func newNotifyEnv(t *testing.T, d models.Dialect, allowPrivate bool) *notifyEnv {
	t.Helper()
	clk := &clock{t: time.Now().UTC(), flowing: time.Now()}
	st := modelstest.Open(t, d, models.Options{Now: clk.Now})
	return startNotifyEnv(t, st, clk, notifyOptions{allowPrivate: allowPrivate})
}

// notifyOptions shape a notifyEnv.
type notifyOptions struct {
	allowPrivate bool          // webhooks may target loopback
	databaseURL  string        // the store's Postgres: live events between servers through NOTIFY
	idle         bool          // the outbox writes jobs but works none (another server does)
	log          *slog.Logger  // nil: logs are discarded
	heartbeat    time.Duration // the streams' (0: 25 s)
}

// startNotifyEnv starts a server with the notification pipeline on st (a
// migrated store), its own mail sink, hub and stream presence.
func startNotifyEnv(t *testing.T, st *models.Store, clk *clock, o notifyOptions) *notifyEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if err := notifier.MigrateRiver(ctx, st); err != nil {
		t.Fatal(err)
	}
	log := o.log
	if log == nil {
		log = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	pl := playpath.New(st, clk.Now, log)
	ms := startMailSink(t)
	ecfg := notifier.EmailConfig{Host: ms.host, Port: ms.port, TLS: notifier.TLSNone,
		From: mail.Address{Name: "Data Monsters", Address: "turns@dm.example"}, BaseURL: "https://dm.example", Timeout: 5 * time.Second}
	sender, err := notifier.NewSMTPSender(ecfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sender.Close() })
	hub := notifier.NewHub(0)
	secret := []byte("unsubscribe-secret")
	push, _ := testPushSender(t) // as serve, which always pushes
	ob, err := notifier.NewOutbox(notifier.OutboxConfig{Store: st, Sender: sender, Email: ecfg, Hub: hub, Logger: log, Now: clk.Now,
		Push:              push,
		Webhook:           notifier.NewWebhookClient(notifier.WebhookOptions{AllowPrivate: o.allowPrivate, Timeout: 2 * time.Second}),
		UnsubscribeSecret: secret, Timeouts: pl, Bots: pl, PollInterval: 20 * time.Millisecond,
		WebhookDisableAfter: 3, WebhookBackoffBase: 20 * time.Millisecond, DatabaseURL: o.databaseURL})
	if err != nil {
		t.Fatal(err)
	}
	st.SetOutbox(ob)
	cfg := testConfig()
	cfg.Vacations, cfg.Push = ob, push
	srv := newServer(st, pl, cfg, log, clk.Now)
	presence := notifier.NewPresence(st, notifier.PresenceOptions{Now: clk.Now, Logger: log})
	go presence.Run(ctx)
	go ob.Listen(ctx)
	srv.SetNotifications(api.Notifications{Outbox: ob, Hub: hub, Presence: presence, UnsubscribeSecret: secret, AllowPrivate: o.allowPrivate,
		Heartbeat: o.heartbeat})
	if !o.idle {
		if err := ob.Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		cancel()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if !o.idle {
			ob.Stop(sctx)
		}
		hub.Close()
	})
	if o.databaseURL != "" {
		waitFor(t, "the live stream listener", ob.Listening)
	}
	return &notifyEnv{env: &env{t: t, srv: hs, store: st, http: hs.Client(), clock: clk}, mail: ms, ob: ob, hub: hub, api: srv, play: pl}
}

// drain waits until River has no job left to work now.
func (e *notifyEnv) drain(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		res, err := e.ob.Client().JobList(context.Background(), river.NewJobListParams().
			States(rivertype.JobStateAvailable, rivertype.JobStateRunning, rivertype.JobStateRetryable, rivertype.JobStatePending).First(10))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Jobs) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the outbox did not drain")
}

// hookCall is one POST a webhook receiver got.
type hookCall struct {
	Header http.Header
	Body   []byte
}

type receiver struct {
	srv    *httptest.Server
	status atomic.Int32
	mu     sync.Mutex
	calls  []hookCall
}

func startReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.status.Store(204)
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.calls = append(r.calls, hookCall{Header: req.Header.Clone(), Body: body})
		r.mu.Unlock()
		w.WriteHeader(int(r.status.Load()))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) all() []hookCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hookCall(nil), r.calls...)
}

// verifySignature checks a delivery the way the README tells receivers to,
// without the notifier package.
func verifySignature(t *testing.T, secret string, c hookCall) {
	t.Helper()
	ts := c.Header.Get("Webhook-Timestamp")
	n, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(n, 0)).Abs() > 5*time.Minute {
		t.Fatalf("Webhook-Timestamp %q", ts)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(c.Body)
	want := "v1=" + hex.EncodeToString(mac.Sum(nil))
	ok := false
	for _, sig := range strings.Fields(c.Header.Get("Webhook-Signature")) {
		ok = ok || hmac.Equal([]byte(sig), []byte(want))
	}
	if !ok {
		t.Fatalf("signature %q does not verify (want %s)", c.Header.Get("Webhook-Signature"), want)
	}
	var body struct {
		ID    string `json:"id"`
		Event string `json:"event"`
	}
	if err := json.Unmarshal(c.Body, &body); err != nil || body.ID != c.Header.Get("Webhook-Id") {
		t.Fatalf("body id %q, header %q, %v", body.ID, c.Header.Get("Webhook-Id"), err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWebhookTargetsGuarded(t *testing.T) {
	eachNotifyDB(t, false, testWebhookTargetsGuarded)
}

func testWebhookTargetsGuarded(t *testing.T, e *notifyEnv) {
	ana := e.register("ana")
	for _, u := range []string{"http://127.0.0.1:9/hook", "http://10.1.2.3/hook", "http://[::1]/x", "http://169.254.169.254/latest",
		"ftp://example.com/x", "http://localhost/x"} {
		r := e.do(req{Method: "POST", Path: "/v1/webhooks", Token: ana.Access, Body: map[string]any{"url": u}})
		if r.Status != 422 || r.code(t) != "invalid" {
			t.Errorf("%s: %d %s", u, r.Status, r.Body)
		}
	}
	r := e.do(req{Method: "POST", Path: "/v1/webhooks", Token: ana.Access, NoContract: true,
		Body: map[string]any{"url": "https://example.com/x", "events": []string{"nonsense"}}})
	if r.Status != 422 {
		t.Errorf("unknown event: %d %s", r.Status, r.Body)
	}
}

func TestWebhooksDeliverSignRetryAndDisable(t *testing.T) {
	eachNotifyDB(t, true, testWebhooksDeliverSignRetryAndDisable)
}

func testWebhooksDeliverSignRetryAndDisable(t *testing.T, e *notifyEnv) {
	rcv := startReceiver(t)
	ana, bob := e.register("ana"), e.register("bob")
	secret := "a-secret-of-sixteen-or-more"
	var wh struct {
		ID     int64    `json:"id"`
		Secret string   `json:"secret"`
		Events []string `json:"events"`
	}
	e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: bob.Access,
		Body: map[string]any{"url": rcv.srv.URL + "/dm", "events": []string{"game_started", "your_turn", "game_over"}, "secret": secret}}).decode(t, &wh)
	if wh.Secret != secret || len(wh.Events) != 3 {
		t.Fatalf("created %+v", wh)
	}
	var list struct {
		Webhooks []map[string]any `json:"webhooks"`
	}
	e.must(200, req{Method: "GET", Path: "/v1/webhooks", Token: bob.Access}).decode(t, &list)
	if len(list.Webhooks) != 1 || list.Webhooks[0]["secret"] != nil {
		t.Fatalf("list shows %+v", list.Webhooks)
	}
	e.must(200, req{Method: "GET", Path: "/v1/webhooks", Token: ana.Access}).decode(t, &list)
	if len(list.Webhooks) != 0 {
		t.Fatalf("ana sees bob's webhooks")
	}

	e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	waitFor(t, "the game_started delivery", func() bool { return len(rcv.all()) >= 1 })
	first := rcv.all()[0]
	verifySignature(t, secret, first)
	if !strings.Contains(string(first.Body), `"event":"game_started"`) || !strings.Contains(string(first.Body), `"players":["ana","bob"]`) {
		t.Fatalf("body %s", first.Body)
	}
	e.drain(t)
	var log struct {
		Deliveries []struct {
			ID, Status, Event string
			Attempts          int
		} `json:"deliveries"`
	}
	path := fmt.Sprintf("/v1/webhooks/%d/deliveries", wh.ID)
	e.must(200, req{Method: "GET", Path: path, Token: bob.Access}).decode(t, &log)
	if len(log.Deliveries) == 0 || log.Deliveries[len(log.Deliveries)-1].Status != "delivered" ||
		log.Deliveries[len(log.Deliveries)-1].ID != first.Header.Get("Webhook-Id") {
		t.Fatalf("delivery log %+v", log.Deliveries)
	}
	e.must(404, req{Method: "GET", Path: path, Token: ana.Access})

	// Redelivery carries the same Webhook-Id.
	n := len(rcv.all())
	e.must(202, req{Method: "POST", Path: fmt.Sprintf("%s/%s/redeliver", path, first.Header.Get("Webhook-Id")), Token: bob.Access})
	waitFor(t, "the redelivery", func() bool { return len(rcv.all()) > n })
	again := rcv.all()[n]
	verifySignature(t, secret, again)
	if again.Header.Get("Webhook-Id") != first.Header.Get("Webhook-Id") || string(again.Body) != string(first.Body) {
		t.Fatalf("redelivery differs: %s vs %s", again.Header.Get("Webhook-Id"), first.Header.Get("Webhook-Id"))
	}

	// The receiver fails: the delivery is retried, and after 3 failures
	// the webhook is disabled.
	rcv.status.Store(500)
	n = len(rcv.all())
	e.must(202, req{Method: "POST", Path: fmt.Sprintf("%s/%s/redeliver", path, first.Header.Get("Webhook-Id")), Token: bob.Access})
	var got struct {
		Webhooks []struct {
			Disabled       bool   `json:"disabled"`
			Failures       int    `json:"failures"`
			DisabledReason string `json:"disabled_reason"`
		} `json:"webhooks"`
	}
	waitFor(t, "the webhook to be disabled", func() bool {
		e.must(200, req{Method: "GET", Path: "/v1/webhooks", Token: bob.Access}).decode(t, &got)
		return got.Webhooks[0].Disabled
	})
	if got.Webhooks[0].Failures != 3 || len(rcv.all())-n != 3 || !strings.Contains(got.Webhooks[0].DisabledReason, "3 consecutive") {
		t.Fatalf("disabled after %d failures and %d attempts: %+v", got.Webhooks[0].Failures, len(rcv.all())-n, got.Webhooks[0])
	}
	e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/webhooks/%d/enable", wh.ID), Token: bob.Access})
	e.must(204, req{Method: "DELETE", Path: fmt.Sprintf("/v1/webhooks/%d", wh.ID), Token: bob.Access})
	e.must(404, req{Method: "DELETE", Path: fmt.Sprintf("/v1/webhooks/%d", wh.ID), Token: bob.Access})
}

// sseEvent is one parsed Server-Sent Event.
type sseEvent = ssetest.Event

// openStream connects to an SSE route and returns a channel of events.
func (e *notifyEnv) openStream(t *testing.T, path, token, lastID string) (<-chan sseEvent, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch, err := e.dialStream(ctx, path, token, lastID)
	if err != nil {
		t.Fatal(err)
	}
	return ch, cancel
}

// dialStream is openStream for any goroutine: it returns the channel of
// events once the response's headers are in, or an error.
func (e *notifyEnv) dialStream(ctx context.Context, path, token, lastID string) (<-chan sseEvent, error) {
	r, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+path, nil)
	r.Header.Set("Authorization", "Bearer "+token)
	if lastID != "" {
		r.Header.Set("Last-Event-ID", lastID)
	}
	res, err := e.http.Do(r)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		res.Body.Close()
		return nil, fmt.Errorf("stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	return ssetest.Read(res.Body), nil
}

func next(t *testing.T, ch <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("stream closed")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
	}
	return sseEvent{}
}

// TestStreamResumesAndSilencesTurnEmail: bob's notification stream
// resumes after Last-Event-ID, a game stream shows his redacted events,
// and while he is connected no "your turn" email goes to him.
func TestStreamResumesAndSilencesTurnEmail(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, false)
	ana, bob := e.register("ana"), e.register("bob")
	var g game
	e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access,
		Body: map[string]any{"players": 2, "mode": "fast", "invite": []string{"bob"}, "deck": deck(0)}}).decode(t, &g)
	ch, stop := e.openStream(t, "/v1/notifications/stream", bob.Access, "")
	inv := next(t, ch)
	if inv.Type != "invitation" || !strings.Contains(inv.Data, `"inviter":"ana"`) {
		t.Fatalf("first event %+v", inv)
	}
	stop()
	e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/join", g.ID), Token: bob.Access, Body: map[string]any{"deck": deck(1)}})
	// Connected again, resuming after the invitation.
	ch, stop = e.openStream(t, "/v1/notifications/stream", bob.Access, inv.ID)
	defer stop()
	waitFor(t, "bob's stream subscription", func() bool { return e.hub.Subscribers(notifier.UserTopic(strconv.FormatInt(bob.ID, 10))) > 0 })
	gch, gstop := e.openStream(t, fmt.Sprintf("/v1/games/%d/stream", g.ID), bob.Access, "")
	defer gstop()
	e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/start", g.ID), Token: ana.Access})
	started := next(t, ch)
	if started.Type != "game_started" {
		t.Fatalf("after the invitation: %+v", started)
	}
	if id, _ := strconv.Atoi(started.ID); strconv.Itoa(id) != started.ID || started.ID <= inv.ID && len(started.ID) <= len(inv.ID) {
		t.Fatalf("ids %s then %s", inv.ID, started.ID)
	}
	gev := next(t, gch)
	if gev.Type != "event" || !strings.Contains(gev.Data, `"seq":1`) {
		t.Fatalf("first game event %+v", gev)
	}
	// Play until bob's turn starts while he is connected.
	play(t, e.env, g.ID, []*player{ana, bob}, 3, 60)
	e.drain(t)
	var turns int
	for _, m := range e.mail.all() {
		if strings.Contains(m.Header.Get("Message-Id"), ".your_turn.") && m.To[0] == "bob@example.com" {
			t.Errorf("bob got a turn email while on the stream: %s", m.Header.Get("Subject"))
		}
		if m.To[0] == "ana@example.com" && strings.Contains(m.Header.Get("Message-Id"), "your_turn") {
			turns++
		}
	}
	ns, err := e.store.NotificationsAfter(context.Background(), bob.ID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	bobTurns := 0
	for _, n := range ns {
		if n.Kind == "your_turn" {
			bobTurns++
		}
	}
	if bobTurns == 0 {
		t.Fatalf("bob's turn never came in 60 actions")
	}
	t.Logf("ana got %d turn emails; bob %d turn notifications on the stream and none by email", turns, bobTurns)
}

// TestFullGameNotifications plays a 3-player game with interrupt prompts
// through the API and checks the notifications: every one in the users'
// logs went out by email exactly once, threaded per game, with an
// unsubscribe link, and the game-over mail has the final scores.
func TestFullGameNotifications(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, e2eDialect(), false)
	players := []*player{e.register("ana"), e.register("bob"), e.register("cyd")}
	g := e.startGame(map[string]any{"mode": "standard", "policy": "conceal", "invite": []string{"bob", "cyd"}}, players...)
	out := play(t, e.env, g.ID, players, 2, 3000)
	if out.game.Status != "over" {
		t.Fatalf("status %s", out.game.Status)
	}
	e.drain(t)
	mails := e.mail.all()
	byID := map[string]sunkMail{}
	for _, m := range mails {
		id := m.Header.Get("Message-Id")
		if _, dup := byID[id]; dup {
			t.Fatalf("duplicate Message-ID %s", id)
		}
		byID[id] = m
		thread := fmt.Sprintf("<game-%d@dm.example>", g.ID)
		if m.Header.Get("References") != thread || m.Header.Get("In-Reply-To") != thread {
			t.Fatalf("%s not threaded: %q", id, m.Header.Get("References"))
		}
		if !strings.HasPrefix(m.Header.Get("List-Unsubscribe"), "<https://dm.example/v1/unsubscribe?token=") {
			t.Fatalf("%s: List-Unsubscribe %q", id, m.Header.Get("List-Unsubscribe"))
		}
	}
	kinds := map[string]int{}
	for _, p := range players {
		ns, err := e.store.NotificationsAfter(context.Background(), p.ID, 0, 100000)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			kinds[n.Kind]++
			found := false
			for id, m := range byID {
				if m.To[0] == p.Name+"@example.com" && strings.Contains(id, "."+n.Kind+".u"+strconv.FormatInt(p.ID, 10)) {
					found = true
				}
			}
			if !found {
				t.Fatalf("%s's %s notification %d has no email", p.Name, n.Kind, n.ID)
			}
		}
	}
	if kinds["invitation"] != 2 || kinds["game_started"] != 3 || kinds["game_over"] != 3 || kinds["your_turn"] == 0 || kinds["prompt_waiting"] == 0 {
		t.Fatalf("notification kinds %v", kinds)
	}
	total := 0
	for _, n := range kinds {
		total += n
	}
	if total != len(mails) {
		t.Fatalf("%d notifications but %d emails", total, len(mails))
	}
	for _, m := range mails {
		if strings.Contains(m.Header.Get("Message-Id"), ".game_over.") && !strings.Contains(m.Body, "ana") {
			t.Fatalf("game over mail without the scores:\n%s", m.Body)
		}
		// It says how the game ended once, in the phrase of the event's
		// reason, not the event's whole sentence.
		if strings.Contains(m.Header.Get("Message-Id"), ".game_over.") && strings.Contains(m.Body, "is over: The game is over") {
			t.Fatalf("game over mail says it twice:\n%s", m.Body)
		}
	}
	t.Logf("%d actions, %d interrupt answers, %d emails: %v", out.actions, out.interrupts, len(mails), kinds)
}

// TestUnsubscribeLink: the one-click link from an email turns that kind of
// email off for the user, and the preferences show it.
func TestUnsubscribeLink(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, false)
	ana, bob := e.register("ana"), e.register("bob")
	e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access,
		Body: map[string]any{"players": 2, "mode": "fast", "invite": []string{"bob"}, "deck": deck(0)}})
	waitFor(t, "the invitation", func() bool { return len(e.mail.all()) == 1 })
	link := strings.Trim(e.mail.all()[0].Header.Get("List-Unsubscribe"), "<>")
	path := strings.TrimPrefix(link, "https://dm.example")
	e.must(200, req{Method: "POST", Path: path, Body: "List-Unsubscribe=One-Click",
		Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
	var prefs struct {
		Preferences []struct {
			Kind, Channel string
			Enabled       bool
		} `json:"preferences"`
	}
	e.must(200, req{Method: "GET", Path: "/v1/me/notification-preferences", Token: bob.Access}).decode(t, &prefs)
	for _, p := range prefs.Preferences {
		// Off: what was unsubscribed, and what is off until turned on.
		if off := p.Kind == "invitation" && p.Channel == "email" || models.OptIn(p.Kind, p.Channel); p.Enabled == off {
			t.Fatalf("after unsubscribing: %+v", p)
		}
	}
	e.must(400, req{Method: "GET", Path: "/v1/unsubscribe?token=forged.token.x"})
	e.must(200, req{Method: "PUT", Path: "/v1/me/notification-preferences", Token: bob.Access,
		Body: map[string]any{"preferences": []map[string]any{{"kind": "invitation", "channel": "email", "enabled": true}}}})
	e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access,
		Body: map[string]any{"players": 2, "mode": "fast", "invite": []string{"bob"}, "deck": deck(0)}})
	waitFor(t, "the second invitation", func() bool { return len(e.mail.all()) == 2 })
}

// TestThreePlayersWithBotSeat: a 3-player game whose third seat is the
// service's bot, played through the API by the two people (interrupt
// prompts included) while the bot plays its turns and prompts by itself;
// every notification of the two people is emailed once, and the bot seat
// gets none.
func TestThreePlayersWithBotSeat(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, e2eDialect(), false)
	ana, bob := e.register("ana"), e.register("bob")
	var g game
	e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access, Body: map[string]any{"players": 3, "mode": "fast",
		"policy": "conceal", "invite": []string{"bob"}, "bots": 1, "deck": deck(0)}}).decode(t, &g)
	e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/join", g.ID), Token: bob.Access, Body: map[string]any{"deck": deck(1)}})
	e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/start", g.ID), Token: ana.Access})
	people := []*player{ana, bob}
	bots := []bot.Bot{bot.NewGreedy(rand.New(rand.NewPCG(1, 1))), bot.NewGreedy(rand.New(rand.NewPCG(1, 2)))}
	actions, idle, interrupts := 0, 0, 0
	for actions < 1500 {
		cur := e.getGame(g.ID, ana)
		if cur.Status != "active" {
			break
		}
		moved := false
		for i, p := range people {
			if !cur.Seats[i].Awaited {
				continue
			}
			mine := e.getGame(g.ID, p)
			legal := e.legal(g.ID, p)
			if len(legal) == 0 {
				continue
			}
			a := bots[i].Choose(mine.View, legal)
			if len(mine.Prompts) > 0 && mine.Prompts[0].Kind == engine.PromptInterrupt && mine.View.Active != i {
				interrupts++
			}
			r := e.do(req{Method: "POST", Path: actionsPath(g.ID), Token: p.Access,
				Body: map[string]any{"expected_version": mine.Version, "actions": []engine.Action{a}}})
			if r.Status == 200 {
				actions++
				moved = true
			} else if r.Status != 409 {
				t.Fatalf("action: %d %s", r.Status, r.Body)
			}
		}
		if !moved {
			idle++
			if idle > 3000 {
				t.Fatalf("the bot seat did not move (game %+v)", cur.Seats)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	final := e.getGame(g.ID, ana)
	if final.Status == "active" {
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/vote-end", g.ID), Token: ana.Access})
		e.must(200, req{Method: "POST", Path: fmt.Sprintf("/v1/games/%d/vote-end", g.ID), Token: bob.Access})
		waitFor(t, "the bot to vote", func() bool { return e.getGame(g.ID, ana).Status == "over" })
	}
	e.drain(t)
	// The bot played: its seat has actions in the log.
	acts, err := e.store.Actions(context.Background(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	botActs := 0
	for _, a := range acts {
		if a.Seat == 2 {
			botActs++
		}
	}
	if botActs == 0 {
		t.Fatal("the bot seat never acted")
	}
	mails := e.mail.all()
	seen := map[string]bool{}
	for _, m := range mails {
		id := m.Header.Get("Message-Id")
		if seen[id] {
			t.Fatalf("duplicate %s", id)
		}
		seen[id] = true
		if m.To[0] != "ana@example.com" && m.To[0] != "bob@example.com" {
			t.Fatalf("mail to %v", m.To)
		}
	}
	kinds := map[string]int{}
	total := 0
	for _, p := range people {
		ns, err := e.store.NotificationsAfter(context.Background(), p.ID, 0, 100000)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			kinds[n.Kind]++
			found := false
			for id := range seen {
				if strings.Contains(id, "."+n.Kind+".u"+strconv.FormatInt(p.ID, 10)) {
					found = true
				}
			}
			if !found {
				t.Fatalf("%s's %s has no email", p.Name, n.Kind)
			}
			total++
		}
	}
	if total != len(mails) || kinds["game_over"] != 2 || kinds["game_started"] != 2 || kinds["invitation"] != 1 {
		t.Fatalf("%d notifications, %d mails: %v", total, len(mails), kinds)
	}
	t.Logf("%d actions by people, %d by the bot, %d interrupt prompts answered by a non-active person; mails %v", actions, botActs, interrupts, kinds)
}

// TestVacationAllowance: vacations are counted against 21 days a year,
// may not overlap, and the other players of the caller's games are told.
func TestVacationAllowance(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, false)
	ana, bob := e.register("ana"), e.register("bob")
	e.startGame(map[string]any{"mode": "fast"}, ana, bob)
	now := e.clock.Now()
	// Near the end of a year a vacation could not fit: start in January.
	start := time.Date(now.Year()+1, 1, 10, 0, 0, 0, 0, time.UTC)
	at := func(d float64) string {
		return start.Add(time.Duration(d * 24 * float64(time.Hour))).Format(time.RFC3339)
	}
	e.must(201, req{Method: "POST", Path: "/v1/me/vacations", Token: bob.Access, Body: map[string]any{"starts_at": at(0), "ends_at": at(5)}})
	r := e.do(req{Method: "POST", Path: "/v1/me/vacations", Token: bob.Access, Body: map[string]any{"starts_at": at(4), "ends_at": at(6)}})
	if r.Status != 409 || r.code(t) != "vacation_overlap" {
		t.Fatalf("overlap: %d %s", r.Status, r.Body)
	}
	r = e.do(req{Method: "POST", Path: "/v1/me/vacations", Token: bob.Access, Body: map[string]any{"starts_at": at(10), "ends_at": at(27)}})
	if r.Status != 422 {
		t.Fatalf("over the allowance: %d %s", r.Status, r.Body)
	}
	e.must(201, req{Method: "POST", Path: "/v1/me/vacations", Token: bob.Access, Body: map[string]any{"starts_at": at(10), "ends_at": at(26)}})
	var list struct {
		Vacations []map[string]any `json:"vacations"`
		DaysLeft  float64          `json:"days_left"`
	}
	e.must(200, req{Method: "GET", Path: "/v1/me/vacations", Token: bob.Access}).decode(t, &list)
	if len(list.Vacations) != 2 {
		t.Fatalf("vacations %+v", list)
	}
	waitFor(t, "ana's vacation notices", func() bool {
		n := 0
		for _, m := range e.mail.all() {
			if m.To[0] == "ana@example.com" && strings.Contains(m.Header.Get("Message-Id"), ".vacation.") {
				n++
			}
		}
		return n == 2
	})
}

// TestAddingEmailTurnsEmailOn: an account registered without an email
// address gets its notifications by email once it adds one, without
// touching its preferences; one that turned email off keeps it off.
func TestAddingEmailTurnsEmailOn(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, false)
	ana := e.register("ana")
	noEmail := func(name string) *player {
		var tok struct {
			AccessToken string `json:"access_token"`
			User        struct {
				ID            int64 `json:"id"`
				Notifications struct{ Email, Turns bool }
			} `json:"user"`
		}
		e.must(201, req{Method: "POST", Path: "/v1/auth/register",
			Body: map[string]string{"username": name, "password": "password-" + name}}).decode(t, &tok)
		return &player{Name: name, Access: tok.AccessToken, ID: tok.User.ID}
	}
	bob, cyd := noEmail("bob"), noEmail("cyd")
	e.must(200, req{Method: "PATCH", Path: "/v1/me", Token: cyd.Access,
		Body: map[string]any{"notifications": map[string]bool{"email": false, "turns": true}}})
	var me struct {
		Email         string `json:"email"`
		Notifications struct{ Email, Turns bool }
	}
	for _, p := range []*player{bob, cyd} {
		e.must(200, req{Method: "PATCH", Path: "/v1/me", Token: p.Access, Body: map[string]any{"email": p.Name + "@example.com"}}).decode(t, &me)
		if me.Email != p.Name+"@example.com" || me.Notifications.Email != (p == bob) || !me.Notifications.Turns {
			t.Fatalf("%s after adding an email: %+v", p.Name, me)
		}
	}
	e.must(201, req{Method: "POST", Path: "/v1/games", Token: ana.Access,
		Body: map[string]any{"players": 3, "mode": "fast", "invite": []string{"bob", "cyd"}, "deck": deck(0)}})
	waitFor(t, "bob's invitation", func() bool { return len(e.mail.all()) >= 1 })
	e.drain(t)
	mails := e.mail.all()
	if len(mails) != 1 || mails[0].To[0] != "bob@example.com" {
		t.Fatalf("want one invitation, to bob: %d mails, first to %v", len(mails), mails[0].To)
	}
}

// TestDigestHours: the digest's row of the preferences has its period in
// hours (24 unless chosen), which a request may set (1 to 168) and leaves
// as it was when it says none; no other row has hours.
func TestDigestHours(t *testing.T) {
	t.Parallel()
	e := newNotifyEnv(t, models.SQLite, false)
	ana := e.register("ana")
	hours := func() (digest int, others int) {
		var prefs struct {
			Preferences []struct {
				Kind, Channel string
				Hours         int
			} `json:"preferences"`
		}
		e.must(200, req{Method: "GET", Path: "/v1/me/notification-preferences", Token: ana.Access}).decode(t, &prefs)
		for _, p := range prefs.Preferences {
			if p.Kind == "digest" && p.Channel == "email" {
				digest = p.Hours
			} else if p.Hours != 0 {
				others++
			}
		}
		return digest, others
	}
	put := func(want int, p map[string]any) {
		e.must(want, req{Method: "PUT", Path: "/v1/me/notification-preferences", Token: ana.Access, NoContract: want != 200,
			Body: map[string]any{"preferences": []map[string]any{p}}})
	}
	if d, o := hours(); d != 24 || o != 0 {
		t.Fatalf("by default: digest every %d hours, %d other rows with hours", d, o)
	}
	put(200, map[string]any{"kind": "digest", "channel": "email", "enabled": true, "hours": 6})
	if d, _ := hours(); d != 6 {
		t.Fatalf("after choosing 6: %d", d)
	}
	put(200, map[string]any{"kind": "digest", "channel": "email", "enabled": false})
	if d, _ := hours(); d != 6 {
		t.Fatalf("turned off without hours: %d, want 6 kept", d)
	}
	put(422, map[string]any{"kind": "your_turn", "channel": "email", "enabled": true, "hours": 6})
	put(422, map[string]any{"kind": "digest", "channel": "email", "enabled": true, "hours": 169})
	put(422, map[string]any{"kind": "digest", "channel": "email", "enabled": true, "hours": -1})
	if d, o := hours(); d != 6 || o != 0 {
		t.Fatalf("after refused requests: digest %d, others %d", d, o)
	}
}
