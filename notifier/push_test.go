package notifier

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/pushtest"
	"github.com/datamonsters/turns/models"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// The push service is the one party of a push that these tests do not
// run: internal/pushtest stands in for it, and for the browser that
// subscribed, and reads each push as they would (its VAPID signature, its
// payload decrypted), following the RFCs rather than the library that
// sends.

// subscribe stores b as a subscription of u, as the page does.
func subscribe(t *testing.T, st *models.Store, b *pushtest.Subscriber, u *models.User) *models.PushSubscription {
	p := &models.PushSubscription{UserID: u.ID, Endpoint: b.Endpoint, P256dh: b.P256dh(), Auth: b.Auth()}
	if err := CheckPushSubscription(p.Endpoint, p.P256dh, p.Auth, true); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SavePushSubscription(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// testPushConfig is a fresh VAPID identity.
func testPushConfig(t *testing.T) PushConfig {
	priv, err := NewVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := VAPIDPublicKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return PushConfig{PublicKey: pub, PrivateKey: priv, Subject: "mailto:push@dm.example"}
}

// withPush makes e's outbox push with a fresh identity, to push services
// on 127.0.0.1.
func (e *outboxEnv) withPush(t *testing.T) PushConfig {
	cfg := testPushConfig(t)
	p, err := NewPushSender(cfg, WebhookOptions{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	e.cfg.Push = p
	return cfg
}

// pushJobs returns the push jobs, by state.
func pushJobs(t *testing.T, o *Outbox) map[rivertype.JobState][]PushArgs {
	t.Helper()
	res, err := o.Client().JobList(context.Background(), river.NewJobListParams().Kinds(pushKind).First(10000))
	if err != nil {
		t.Fatal(err)
	}
	out := map[rivertype.JobState][]PushArgs{}
	for _, j := range res.Jobs {
		var a PushArgs
		if err := json.Unmarshal(j.EncodedArgs, &a); err != nil {
			t.Fatal(err)
		}
		out[j.State] = append(out[j.State], a)
	}
	return out
}

// pushesPending counts the push jobs not worked to their end yet.
func pushesPending(t *testing.T, o *Outbox) int {
	jobs := pushJobs(t, o)
	return len(jobs[rivertype.JobStateAvailable]) + len(jobs[rivertype.JobStateRunning]) + len(jobs[rivertype.JobStateRetryable])
}

// readPush checks a push's signature, as its push service does, and
// decrypts it for b, as the browser does.
func readPush(t *testing.T, r pushtest.Request, b *pushtest.Subscriber, ps *pushtest.Service, cfg PushConfig) PushMessage {
	t.Helper()
	if err := pushtest.CheckVAPID(r, ps.URL, cfg.PublicKey, cfg.Subject); err != nil {
		t.Fatalf("the push to %s: %v", r.Path, err)
	}
	plain, err := b.Decrypt(r.Body)
	if err != nil {
		t.Fatalf("decrypt the push to %s: %v", r.Path, err)
	}
	var m PushMessage
	if err := json.Unmarshal(plain, &m); err != nil {
		t.Fatalf("the push's payload %q: %v", plain, err)
	}
	return m
}

// TestPushAWholeGame plays a whole game between two players whose
// browsers subscribed to push: every push reaches the local push service
// signed with the server's VAPID key and encrypted for the subscription,
// says which game and what changed (the headline of the email of the same
// change) with a link to the board, never names a card of its
// recipient's hand, and no change pushes anyone twice.
func TestPushAWholeGame(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		cfg := e.withPush(t)
		ps := pushtest.NewService(t)
		ana, ben := e.users[0], e.users[1]
		browsers := map[int64]*pushtest.Subscriber{ana.ID: pushtest.NewSubscriber(t, ps, "ana"), ben.ID: pushtest.NewSubscriber(t, ps, "ben")}
		for _, u := range []*models.User{ana, ben} {
			subscribe(t, e.st, browsers[u.ID], u)
		}
		o := e.outbox(t, true)
		// Every card each seat ever held, read before each move.
		held := map[int]map[string]bool{0: {}, 1: {}}
		pg := playGame(t, e, 11, func(pg *playedGame) {
			err := pg.p.Read(ctx, pg.id, ana.ID, func(_ *models.Game, _ int, st *engine.State) error {
				for seat := range held {
					for _, c := range st.View(seat).Hand {
						held[seat][c.Name] = true
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
		waitFor(t, "every push job worked", func() bool { return pushesPending(t, o) == 0 })
		jobs := pushJobs(t, o)
		if n := len(jobs[rivertype.JobStateCancelled]) + len(jobs[rivertype.JobStateDiscarded]); n > 0 {
			t.Fatalf("%d push jobs given up", n)
		}
		// One push per person per change.
		perChange := map[string]int{}
		for _, a := range jobs[rivertype.JobStateCompleted] {
			v := mailVersion.FindStringSubmatch(a.Key)
			if v == nil {
				t.Fatalf("push key %s names no version", a.Key)
			}
			perChange[strconv.FormatInt(a.UserID, 10)+" v"+v[1]]++
		}
		for k, n := range perChange {
			if n > 1 {
				t.Errorf("user %s: %d pushes from one change", k, n)
			}
		}
		if got := len(ps.Requests("")); got != len(jobs[rivertype.JobStateCompleted]) {
			t.Fatalf("the push service got %d pushes for %d completed jobs", got, len(jobs[rivertype.JobStateCompleted]))
		}

		gid := strconv.FormatInt(pg.id, 10)
		kinds := map[Kind]int{}
		for seat, u := range []*models.User{ana, ben} {
			b := browsers[u.ID]
			reqs := ps.Requests(b.Path)
			if len(reqs) == 0 {
				t.Fatalf("no push to %s", u.Username)
			}
			for _, r := range reqs {
				m := readPush(t, r, b, ps, cfg)
				kinds[m.Kind]++
				if m.Title != "Game #"+gid+", hosted by ana" || m.URL != "https://dm.example/games/"+gid || m.GameID != pg.id ||
					m.Tag != "game-"+gid || m.Body == "" {
					t.Errorf("push to %s: %+v", u.Username, m)
				}
				if m.Kind == KindYourTurn && !strings.HasPrefix(m.Body, "It is your turn") {
					t.Errorf("a your-turn push says %q", m.Body)
				}
				if urgent := r.Header.Get("Urgency") == "high"; urgent != (m.Kind == KindYourTurn || m.Kind == KindPromptWaiting ||
					m.Kind == KindGameStarted && strings.Contains(m.Body, "you play first")) {
					t.Errorf("%s push with Urgency %q", m.Kind, r.Header.Get("Urgency"))
				}
				if r.Header.Get("Topic") != "game-"+gid {
					t.Errorf("Topic %q", r.Header.Get("Topic"))
				}
				plain, _ := json.Marshal(m)
				for name := range held[seat] {
					if strings.Contains(string(plain), name) {
						t.Errorf("a push to %s names %q, a card of their hand: %s", u.Username, name, plain)
					}
				}
			}
		}
		if kinds[KindYourTurn] < 4 || kinds[KindGameOver] != 2 || kinds[KindInvitation] != 1 || kinds[KindGameStarted] != 2 {
			t.Fatalf("pushes by kind %v in %d moves", kinds, pg.moves)
		}
		// The emails of the same decisions show the hand: the check above
		// would see a card name there.
		shown := 0
		for _, m := range e.sink.messages() {
			p := parseMail(t, m.Data)
			if m.Rcpts[0] != ana.Email || !strings.Contains(p.Header.Get("Message-Id"), ".your_turn.") {
				continue
			}
			for name := range held[0] {
				if strings.Contains(p.Text, name) {
					shown++
					break
				}
			}
		}
		if shown == 0 {
			t.Fatal("no your-turn email names a card of ana's hand: the test cannot tell a card name")
		}
		t.Logf("%d moves, %d pushes: %v", pg.moves, len(ps.Requests("")), kinds)
	})
}

// TestPushGoneSubscription: a push service that answers 410 Gone, or 404,
// for a subscription gets that push once, and the subscription is
// deleted; the other subscriptions of the same change get theirs.
func TestPushGoneSubscription(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		cfg := e.withPush(t)
		ps := pushtest.NewService(t)
		ben, cy := e.users[1], e.users[2]
		benB, cyB, cyPhone := pushtest.NewSubscriber(t, ps, "ben"), pushtest.NewSubscriber(t, ps, "cy"), pushtest.NewSubscriber(t, ps, "cy-phone")
		benSub, cySub := subscribe(t, e.st, benB, ben), subscribe(t, e.st, cyB, cy)
		subscribe(t, e.st, cyPhone, cy)
		ps.AnswerWith(benB.Path, http.StatusGone)
		ps.AnswerWith(cyB.Path, http.StatusNotFound)
		o := e.outbox(t, true)
		e.createGame(t) // invites ben and cy
		waitFor(t, "the three invitation pushes worked", func() bool {
			jobs := pushJobs(t, o)
			return len(jobs[rivertype.JobStateCancelled]) == 2 && len(jobs[rivertype.JobStateCompleted]) == 1
		})
		for _, s := range []*models.PushSubscription{benSub, cySub} {
			if _, err := e.st.PushSubscriptionByID(ctx, s.ID); !errors.Is(err, models.ErrNotFound) {
				t.Fatalf("subscription %s is kept after its push service said it is gone: %v", s.Endpoint, err)
			}
		}
		left, err := e.st.PushSubscriptions(ctx, cy.ID)
		if err != nil || len(left) != 1 || left[0].Endpoint != cyPhone.Endpoint {
			t.Fatalf("cy's subscriptions: %+v %v", left, err)
		}
		if m := readPush(t, ps.Requests(cyPhone.Path)[0], cyPhone, ps, cfg); m.Kind != KindInvitation ||
			!strings.HasPrefix(m.Body, "ana invites you to play") {
			t.Fatalf("cy's phone got %+v", m)
		}
		time.Sleep(300 * time.Millisecond) // a retry would come now
		if n, m := len(ps.Requests(benB.Path)), len(ps.Requests(cyB.Path)); n != 1 || m != 1 {
			t.Fatalf("%d and %d pushes to the gone subscriptions, want one each", n, m)
		}
	})
}

// TestPushRetried: a push the push service refuses for now (503, 429) is
// sent again with backoff until it is taken.
func TestPushRetried(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		e := newOutboxEnv(t, d)
		cfg := e.withPush(t)
		e.cfg.Now = nil // River's real clock, so that the retries come due
		e.cfg.PushRetryBase = 50 * time.Millisecond
		ps := pushtest.NewService(t)
		b := pushtest.NewSubscriber(t, ps, "ben")
		subscribe(t, e.st, b, e.users[1])
		ps.AnswerWith(b.Path, http.StatusServiceUnavailable, http.StatusTooManyRequests)
		o := e.outbox(t, true)
		e.createGame(t)
		waitFor(t, "the push delivered", func() bool { return len(pushJobs(t, o)[rivertype.JobStateCompleted]) == 1 })
		reqs := ps.Requests(b.Path)
		if len(reqs) != 3 {
			t.Fatalf("%d attempts, want 3 (503, 429, then taken)", len(reqs))
		}
		for _, r := range reqs {
			if m := readPush(t, r, b, ps, cfg); m.Kind != KindInvitation {
				t.Fatalf("attempt says %+v", m)
			}
		}
	})
}

// TestPushPreferences: a kind turned off for push sends its recipient no
// push, while their email goes; a player without a subscription gets no
// push job.
func TestPushPreferences(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		ctx := context.Background()
		e := newOutboxEnv(t, d)
		e.withPush(t)
		ps := pushtest.NewService(t)
		ana, ben := e.users[0], e.users[1]
		anaB, benB := pushtest.NewSubscriber(t, ps, "ana"), pushtest.NewSubscriber(t, ps, "ben")
		subscribe(t, e.st, anaB, ana)
		subscribe(t, e.st, benB, ben)
		for _, p := range []models.Preference{{UserID: ben.ID, Kind: string(KindInvitation), Channel: ChannelPush},
			{UserID: ana.ID, Kind: string(KindGameStarted), Channel: ChannelPush}} {
			if err := e.st.SetPreference(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		o := e.outbox(t, true)
		g := e.createGame(t)
		e.waitMail(t, 2) // ben's and cy's invitations
		e.start(t, g.ID)
		e.waitMail(t, 5) // and the three game-started emails
		waitFor(t, "the push jobs worked", func() bool { return pushesPending(t, o) == 0 })
		time.Sleep(200 * time.Millisecond)
		var keys []string
		for _, jobs := range pushJobs(t, o) {
			for _, a := range jobs {
				keys = append(keys, a.Key)
			}
		}
		// ben: no invitation push (off), his game-started one; ana: none
		// (game-started off); cy: no subscription.
		want := "g" + strconv.FormatInt(g.ID, 10) + ".v2.game_started.u" + strconv.FormatInt(ben.ID, 10) + ".push"
		if len(keys) != 1 || !strings.HasPrefix(keys[0], want) {
			t.Fatalf("push jobs %v, want one, %s…", keys, want)
		}
		if n, m := len(ps.Requests(anaB.Path)), len(ps.Requests(benB.Path)); n != 0 || m != 1 {
			t.Fatalf("%d pushes to ana (want 0), %d to ben (want 1)", n, m)
		}
	})
}

// TestNoTurnPushWhileFollowingLive: like their emails, a player's "your
// turn" and prompt pushes are not sent while they follow the game live
// (here their notification stream, open in this process); the other
// kinds are.
func TestNoTurnPushWhileFollowingLive(t *testing.T) {
	eachOutboxDB(t, func(t *testing.T, d models.Dialect) {
		e := newOutboxEnv(t, d)
		e.withPush(t)
		ps := pushtest.NewService(t)
		for _, u := range e.users[:2] {
			subscribe(t, e.st, pushtest.NewSubscriber(t, ps, u.Username), u)
			sub := e.hub.Subscribe(UserTopic(strconv.FormatInt(u.ID, 10)))
			go func() { // read, as a client does, or the hub drops it
				for range sub.Events() {
				}
			}()
			t.Cleanup(sub.Close)
		}
		o := e.outbox(t, true)
		playGame(t, e, 11, nil)
		waitFor(t, "every push job worked", func() bool { return pushesPending(t, o) == 0 })
		sent := map[Kind]int{}
		for _, a := range pushJobs(t, o)[rivertype.JobStateCompleted] {
			sent[a.Message.Kind]++
		}
		if n := len(ps.Requests("")); sent[KindYourTurn]+sent[KindPromptWaiting] == 0 || sent[KindGameOver] != 2 ||
			n != sent[KindInvitation]+sent[KindGameStarted]+sent[KindGameOver]+sent[KindTimeoutApplied]+sent[KindQueuedActions] {
			t.Fatalf("%d pushes sent for the jobs %v: want the turn and prompt pushes skipped", n, sent)
		}
	})
}
