package notifier

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/golang-jwt/jwt/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// The push service is the one party of a push that these tests do not
// run: pushService stands in for it, and testBrowser for the browser that
// subscribed, holding the subscription's private key and auth secret. A
// push is read as a browser reads it: its VAPID signature checked
// (RFC 8292) and its payload decrypted (RFC 8291, aes128gcm of RFC 8188),
// both written here from the RFCs, not with the library that sends.

// pushRequest is one POST the push service received.
type pushRequest struct {
	path   string
	header http.Header
	body   []byte
}

// pushService is a local push service: it records every push and answers
// 201, or the statuses queued for a subscription's path, in turn.
type pushService struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []pushRequest
	answer map[string][]int
}

func newPushService(t *testing.T) *pushService {
	ps := &pushService{answer: map[string][]int{}}
	ps.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ps.mu.Lock()
		ps.got = append(ps.got, pushRequest{path: r.URL.Path, header: r.Header.Clone(), body: body})
		status := http.StatusCreated
		if q := ps.answer[r.URL.Path]; len(q) > 0 {
			status, ps.answer[r.URL.Path] = q[0], q[1:]
		}
		ps.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(ps.srv.Close)
	return ps
}

// answerWith queues statuses for the subscription at path.
func (ps *pushService) answerWith(path string, statuses ...int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.answer[path] = append(ps.answer[path], statuses...)
}

// requests returns the pushes received so far, to path if not "".
func (ps *pushService) requests(path string) []pushRequest {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []pushRequest
	for _, r := range ps.got {
		if path == "" || r.path == path {
			out = append(out, r)
		}
	}
	return out
}

// testBrowser is a browser's push subscription: its key pair and auth
// secret, and the endpoint its push service gave it.
type testBrowser struct {
	key      *ecdh.PrivateKey
	auth     []byte
	endpoint string
	path     string
}

func newTestBrowser(t *testing.T, ps *pushService, name string) *testBrowser {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b := &testBrowser{key: k, auth: make([]byte, 16), path: "/push/" + name}
	rand.Read(b.auth)
	b.endpoint = ps.srv.URL + b.path
	return b
}

// subscribe stores b as a subscription of u, as the page does.
func (b *testBrowser) subscribe(t *testing.T, st *models.Store, u *models.User) *models.PushSubscription {
	p := &models.PushSubscription{UserID: u.ID, Endpoint: b.endpoint, P256dh: b64.EncodeToString(b.key.PublicKey().Bytes()),
		Auth: b64.EncodeToString(b.auth)}
	if err := CheckPushSubscription(p.Endpoint, p.P256dh, p.Auth, true); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SavePushSubscription(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// decrypt decrypts a push's body as the browser does (RFC 8291 §3.4 and
// RFC 8188 §2): the header (salt, record size, the server's one-time
// public key), the keys from ECDH and HKDF-SHA256 with the auth secret,
// then each record with AES-128-GCM, its padding and delimiter taken off.
func (b *testBrowser) decrypt(body []byte) ([]byte, error) {
	if len(body) > 4096 {
		return nil, fmt.Errorf("%d bytes: a push service takes at most 4096 (RFC 8291 §4)", len(body))
	}
	if len(body) < 21 {
		return nil, errors.New("shorter than the aes128gcm header")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if idlen != 65 || len(body) < 21+idlen || rs < 18 {
		return nil, fmt.Errorf("header: key id of %d bytes (want 65, the server's public key), record size %d", idlen, rs)
	}
	asPublic := body[21 : 21+idlen]
	as, err := ecdh.P256().NewPublicKey(asPublic)
	if err != nil {
		return nil, err
	}
	secret, err := b.key.ECDH(as)
	if err != nil {
		return nil, err
	}
	prkKey, err := hkdf.Extract(sha256.New, secret, b.auth)
	if err != nil {
		return nil, err
	}
	ikm, err := hkdf.Expand(sha256.New, prkKey, "WebPush: info\x00"+string(b.key.PublicKey().Bytes())+string(asPublic), 32)
	if err != nil {
		return nil, err
	}
	prk, err := hkdf.Extract(sha256.New, ikm, salt)
	if err != nil {
		return nil, err
	}
	cek, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, err
	}
	nonce, err := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	var out []byte
	rest := body[21+idlen:]
	for seq := uint64(0); len(rest) > 0; seq++ {
		n := min(int(rs), len(rest))
		record := rest[:n]
		rest = rest[n:]
		iv := slices.Clone(nonce)
		for i := range 8 {
			iv[11-i] ^= byte(seq >> (8 * i))
		}
		plain, err := gcm.Open(nil, iv, record, nil)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", seq, err)
		}
		end := len(plain) - 1
		for end >= 0 && plain[end] == 0 {
			end--
		}
		switch {
		case end < 0:
			return nil, fmt.Errorf("record %d has no delimiter", seq)
		case len(rest) == 0 && plain[end] != 2, len(rest) > 0 && plain[end] != 1:
			return nil, fmt.Errorf("record %d: delimiter %d", seq, plain[end])
		}
		out = append(out, plain[:end]...)
	}
	return out, nil
}

// checkVAPID checks a push's Authorization header (RFC 8292 §3):
// "vapid t=<JWT>, k=<public key>", k the server's key, the JWT signed
// with it (ES256), for the endpoint's origin, expiring within 24 hours,
// with the server's contact.
func checkVAPID(t *testing.T, r pushRequest, origin string, cfg PushConfig) {
	t.Helper()
	auth, ok := strings.CutPrefix(r.header.Get("Authorization"), "vapid ")
	if !ok {
		t.Fatalf("Authorization %q: want the vapid scheme", r.header.Get("Authorization"))
	}
	params := map[string]string{}
	for _, p := range strings.Split(auth, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		params[k] = v
	}
	if params["k"] != cfg.PublicKey {
		t.Fatalf("k=%q, want the server's public key %q", params["k"], cfg.PublicKey)
	}
	raw, err := b64.DecodeString(params["k"])
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		t.Fatal(err)
	}
	var claims jwt.RegisteredClaims
	_, err = jwt.ParseWithClaims(params["t"], &claims, func(*jwt.Token) (any, error) { return pub, nil },
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithAudience(origin), jwt.WithExpirationRequired())
	if err != nil {
		t.Fatalf("VAPID JWT: %v", err)
	}
	if left := time.Until(claims.ExpiresAt.Time); left <= 0 || left > 24*time.Hour {
		t.Fatalf("VAPID JWT expires in %s: want at most 24 hours", left)
	}
	if claims.Subject != cfg.Subject {
		t.Fatalf("VAPID sub %q, want %q", claims.Subject, cfg.Subject)
	}
	if r.header.Get("Content-Encoding") != "aes128gcm" || r.header.Get("TTL") == "" {
		t.Fatalf("Content-Encoding %q, TTL %q", r.header.Get("Content-Encoding"), r.header.Get("TTL"))
	}
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

// readPush checks a push's signature and decrypts it for b.
func readPush(t *testing.T, r pushRequest, b *testBrowser, ps *pushService, cfg PushConfig) PushMessage {
	t.Helper()
	checkVAPID(t, r, ps.srv.URL, cfg)
	plain, err := b.decrypt(r.body)
	if err != nil {
		t.Fatalf("decrypt the push to %s: %v", r.path, err)
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
		ps := newPushService(t)
		ana, ben := e.users[0], e.users[1]
		browsers := map[int64]*testBrowser{ana.ID: newTestBrowser(t, ps, "ana"), ben.ID: newTestBrowser(t, ps, "ben")}
		for _, u := range []*models.User{ana, ben} {
			browsers[u.ID].subscribe(t, e.st, u)
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
		if got := len(ps.requests("")); got != len(jobs[rivertype.JobStateCompleted]) {
			t.Fatalf("the push service got %d pushes for %d completed jobs", got, len(jobs[rivertype.JobStateCompleted]))
		}

		gid := strconv.FormatInt(pg.id, 10)
		kinds := map[Kind]int{}
		for seat, u := range []*models.User{ana, ben} {
			b := browsers[u.ID]
			reqs := ps.requests(b.path)
			if len(reqs) == 0 {
				t.Fatalf("no push to %s", u.Username)
			}
			for _, r := range reqs {
				m := readPush(t, r, b, ps, cfg)
				kinds[m.Kind]++
				if m.Title != "Game #"+gid+": ana, ben" || m.URL != "https://dm.example/games/"+gid || m.GameID != pg.id ||
					m.Tag != "game-"+gid || m.Body == "" {
					t.Errorf("push to %s: %+v", u.Username, m)
				}
				if m.Kind == KindYourTurn && !strings.HasPrefix(m.Body, "It is your turn") {
					t.Errorf("a your-turn push says %q", m.Body)
				}
				if urgent := r.header.Get("Urgency") == "high"; urgent != (m.Kind == KindYourTurn || m.Kind == KindPromptWaiting ||
					m.Kind == KindGameStarted && strings.Contains(m.Body, "you play first")) {
					t.Errorf("%s push with Urgency %q", m.Kind, r.header.Get("Urgency"))
				}
				if r.header.Get("Topic") != "game-"+gid {
					t.Errorf("Topic %q", r.header.Get("Topic"))
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
		t.Logf("%d moves, %d pushes: %v", pg.moves, len(ps.requests("")), kinds)
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
		ps := newPushService(t)
		ben, cy := e.users[1], e.users[2]
		benB, cyB, cyPhone := newTestBrowser(t, ps, "ben"), newTestBrowser(t, ps, "cy"), newTestBrowser(t, ps, "cy-phone")
		benSub, cySub := benB.subscribe(t, e.st, ben), cyB.subscribe(t, e.st, cy)
		cyPhone.subscribe(t, e.st, cy)
		ps.answerWith(benB.path, http.StatusGone)
		ps.answerWith(cyB.path, http.StatusNotFound)
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
		if err != nil || len(left) != 1 || left[0].Endpoint != cyPhone.endpoint {
			t.Fatalf("cy's subscriptions: %+v %v", left, err)
		}
		if m := readPush(t, ps.requests(cyPhone.path)[0], cyPhone, ps, cfg); m.Kind != KindInvitation ||
			!strings.HasPrefix(m.Body, "ana invites you to play") {
			t.Fatalf("cy's phone got %+v", m)
		}
		time.Sleep(300 * time.Millisecond) // a retry would come now
		if n, m := len(ps.requests(benB.path)), len(ps.requests(cyB.path)); n != 1 || m != 1 {
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
		ps := newPushService(t)
		b := newTestBrowser(t, ps, "ben")
		b.subscribe(t, e.st, e.users[1])
		ps.answerWith(b.path, http.StatusServiceUnavailable, http.StatusTooManyRequests)
		o := e.outbox(t, true)
		e.createGame(t)
		waitFor(t, "the push delivered", func() bool { return len(pushJobs(t, o)[rivertype.JobStateCompleted]) == 1 })
		reqs := ps.requests(b.path)
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
		ps := newPushService(t)
		ana, ben := e.users[0], e.users[1]
		anaB, benB := newTestBrowser(t, ps, "ana"), newTestBrowser(t, ps, "ben")
		anaB.subscribe(t, e.st, ana)
		benB.subscribe(t, e.st, ben)
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
		if n, m := len(ps.requests(anaB.path)), len(ps.requests(benB.path)); n != 0 || m != 1 {
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
		ps := newPushService(t)
		for _, u := range e.users[:2] {
			newTestBrowser(t, ps, u.Username).subscribe(t, e.st, u)
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
		if n := len(ps.requests("")); sent[KindYourTurn]+sent[KindPromptWaiting] == 0 || sent[KindGameOver] != 2 ||
			n != sent[KindInvitation]+sent[KindGameStarted]+sent[KindGameOver]+sent[KindTimeoutApplied]+sent[KindQueuedActions] {
			t.Fatalf("%d pushes sent for the jobs %v: want the turn and prompt pushes skipped", n, sent)
		}
	})
}
