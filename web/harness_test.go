package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/api"
	"github.com/datamonsters/turns/internal/router"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
	"github.com/datamonsters/turns/web"
)

// site is the whole service on a real port: the API and the pages on one
// router, a store of its own, a mail folder, and, with withOutbox, the
// notification outbox writing its mail there too.
type site struct {
	t        testing.TB
	url      string
	store    *models.Store
	api      *api.Server
	accounts *accounts.Service
	play     *play.Service
	pages    *web.Pages
	handler  http.Handler  // the house's router
	hub      *notifier.Hub // the live streams' (with outbox)
	clock    *clock
	mailDir  string
	secret   []byte // signs the links of emails
	unsub    []byte // signs unsubscribe links
}

// clock is a test clock that runs with real time from a start it can be
// moved from.
type clock struct {
	mu    sync.Mutex
	start time.Time
	ahead time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().UTC().Add(c.ahead)
}

// Add moves the clock forward by d.
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.ahead += d
	c.mu.Unlock()
}

// siteOptions shape a site.
type siteOptions struct {
	outbox bool   // run the notification outbox
	base   string // BASE_URL to configure instead of the server's address (for cookie flags)
	logins int    // the login rate limit's burst; 0: 1000 (none to speak of)
	proxy  bool   // believe X-Forwarded-For from 127.0.0.1 (clients of other addresses)
	// readers is Config.Readers (0: the default).
	readers int
	// heartbeat is Config.Heartbeat, the live stream's (0: 25 s).
	heartbeat time.Duration
	// replies is Config.Replies: replies to emails come in.
	replies bool
	// log takes the site's log (nil: discarded).
	log slog.Handler
	// push, with outbox, sends Web Push (to push services on any address)
	// and lets the API take subscriptions.
	push *notifier.PushSender
	// streams, with outbox, is the hub's StreamsPerClient (0: the default).
	streams int
}

var testSecret = []byte("test-secret-0123456789abcdef0123456789")

// newSite starts a site on a fresh store of dialect d.
func newSite(t testing.TB, d models.Dialect, o siteOptions) *site {
	t.Helper()
	clk := &clock{}
	var dbURL string // Postgres: the outbox listens for the changes' announcements on it
	if d == models.Postgres {
		dbURL = modelstest.SchemaURL(t)
	}
	var st *models.Store
	if dbURL != "" {
		st = modelstest.OpenURL(t, dbURL, models.Options{Now: clk.Now})
	} else {
		st = modelstest.Open(t, d, models.Options{Now: clk.Now})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &site{t: t, url: "http://" + ln.Addr().String(), store: st, clock: clk, mailDir: t.TempDir(),
		secret: []byte("link-secret-0123456789abcdef0123456789"), unsub: []byte("unsubscribe-secret")}
	base := s.url
	if o.base != "" {
		base = o.base
	}
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	if o.log != nil {
		log = slog.New(o.log)
	}
	if os.Getenv("SITE_LOG") != "" { // the site's log on stderr, to follow a failing test
		log = slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if o.logins == 0 {
		o.logins = 1000
	}
	pl := play.New(st, clk.Now, log)
	ecfg := notifier.EmailConfig{From: mail.Address{Name: "Data Monsters", Address: "turns@dm.example"}, BaseURL: base, MailDir: s.mailDir}
	sender, err := notifier.NewFolderSender(ecfg, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var hub *notifier.Hub
	var presence *notifier.Presence
	var ob *notifier.Outbox
	acfg := accounts.Config{Secret: testSecret, Issuer: "datamonsters", Audience: "datamonsters-api",
		LoginBurst: o.logins, LoginEvery: time.Minute, RegisterBurst: o.logins, RegisterEvery: time.Minute,
		Kinds: notifier.KindNames(), Channels: notifier.Channels, Hash: cheapHash}
	if o.outbox {
		if err := notifier.MigrateRiver(ctx, st); err != nil {
			t.Fatal(err)
		}
		hub = notifier.NewHub(0)
		hub.StreamsPerClient = o.streams
		s.hub = hub
		ob, err = notifier.NewOutbox(notifier.OutboxConfig{Store: st, Sender: sender, Email: ecfg, Hub: hub, Logger: log,
			Now: clk.Now, UnsubscribeSecret: s.unsub, SignInSecret: s.secret, Timeouts: pl, Bots: pl,
			PollInterval: 20 * time.Millisecond, DatabaseURL: dbURL, Push: o.push,
			Webhook: notifier.NewWebhookClient(notifier.WebhookOptions{AllowPrivate: true, Timeout: 2 * time.Second})})
		if err != nil {
			t.Fatal(err)
		}
		st.SetOutbox(ob)
		if dbURL != "" { // as serve runs on Postgres: presence rows, and the LISTEN loop
			presence = notifier.NewPresence(st, notifier.PresenceOptions{Now: clk.Now, Logger: log})
			go presence.Run(ctx)
			go ob.Listen(ctx)
		}
		acfg.Vacations = ob
		if o.push != nil {
			acfg.Push = o.push
		}
		if err := ob.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			ob.Stop(sctx)
			hub.Close()
		})
	}
	s.accounts = accounts.New(st, pl, acfg, log, clk.Now)
	s.api = api.New(st, pl, s.accounts, api.Config{Secret: testSecret, BaseURL: base}, log, clk.Now)
	pages, err := web.New(st, sender, web.Config{BaseURL: base, Secret: s.secret, MailDomain: ecfg.Domain(),
		Play: pl, Accounts: s.accounts, Hub: hub, Presence: presence, Readers: o.readers, Replies: o.replies,
		Heartbeat: o.heartbeat}, log, clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	if o.outbox {
		s.api.SetNotifications(api.Notifications{Outbox: ob, Hub: hub, Presence: presence, UnsubscribeSecret: s.unsub,
			UnsubscribePage: pages.Unsubscribe, AllowPrivate: true})
	}
	s.play, s.pages = pl, pages
	// The house as main mounts it: the API under /v1 and the pages
	// elsewhere, on one router.
	r := router.New(router.Config{TrustedProxies: proxies(o.proxy), Log: log},
		router.Mount{Prefix: "/v1/", Door: s.api}, router.Mount{Door: pages})
	s.handler = r
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() {
		cancel()
		srv.Close()
	})
	return s
}

func proxies(on bool) []string {
	if on {
		return []string{"127.0.0.1"}
	}
	return nil
}

// eachDB runs f on SQLite and, with TEST_DATABASE_URL, on Postgres, in
// parallel subtests.
func eachDB(t *testing.T, f func(t *testing.T, d models.Dialect)) {
	modelstest.EachDialect(t, func(t *testing.T, d models.Dialect) {
		t.Parallel()
		f(t, d)
	})
}

// client is one browser's worth of HTTP: a cookie jar, redirects not
// followed, and the headers a browser sends with a form of the site.
type client struct {
	s    *site
	http *http.Client
}

func (s *site) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{s: s, http: &http.Client{Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// resp is a response read whole.
type resp struct {
	Status int
	Header http.Header
	Body   string
}

// get fetches path (or an absolute URL) as this client.
func (c *client) get(path string) resp {
	c.s.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.abs(path), nil)
	if err != nil {
		c.s.t.Fatal(err)
	}
	req.Header.Set("Sec-Fetch-Site", "none")
	return c.do(req)
}

// post sends form to path as a form of the site's own page would.
func (c *client) post(path string, form url.Values) resp {
	c.s.t.Helper()
	return c.postFrom(path, form, c.s.url, "same-origin")
}

// postFrom sends form to path with the Origin and Sec-Fetch-Site headers
// given ("" leaves one out).
func (c *client) postFrom(path string, form url.Values, origin, fetchSite string) resp {
	c.s.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.abs(path), strings.NewReader(form.Encode()))
	if err != nil {
		c.s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if fetchSite != "" {
		req.Header.Set("Sec-Fetch-Site", fetchSite)
	}
	return c.do(req)
}

func (c *client) abs(path string) string {
	if strings.HasPrefix(path, "http") {
		return path
	}
	return c.s.url + path
}

func (c *client) do(req *http.Request) resp {
	c.s.t.Helper()
	r, err := c.http.Do(req)
	if err != nil {
		c.s.t.Fatal(err)
	}
	defer r.Body.Close()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		c.s.t.Fatal(err)
	}
	return resp{Status: r.StatusCode, Header: r.Header, Body: string(body)}
}

// mustSee fails unless r has status and its body contains every text.
func (r resp) mustSee(t testing.TB, status int, texts ...string) resp {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body:\n%s", r.Status, status, clip(r.Body))
	}
	for _, s := range texts {
		if !strings.Contains(r.Body, s) {
			t.Fatalf("the page does not say %q:\n%s", s, clip(r.Body))
		}
	}
	return r
}

// mustRedirect fails unless r is a 303 to a location that starts with
// prefix.
func (r resp) mustRedirect(t testing.TB, prefix string) string {
	t.Helper()
	loc := r.Header.Get("Location")
	if r.Status != http.StatusSeeOther || !strings.HasPrefix(loc, prefix) {
		t.Fatalf("status %d to %q, want 303 to %s...; body:\n%s", r.Status, loc, prefix, clip(r.Body))
	}
	return loc
}

func clip(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

// signedIn reports whether the client has a live session (the settings
// page opens rather than sending it to sign in).
func (c *client) signedIn() bool {
	c.s.t.Helper()
	r := c.get("/settings")
	return r.Status == http.StatusOK
}

// register creates an account through the register form, signed in on c.
func (c *client) register(name, password string) {
	c.s.t.Helper()
	c.post("/register", url.Values{"username": {name}, "email": {name + "@example.com"}, "password": {password},
		"time_zone": {"Europe/Paris"}}).mustRedirect(c.s.t, "/?done=registered")
}

// login signs c in through the sign-in form.
func (c *client) login(name, password string) {
	c.s.t.Helper()
	c.post("/login", url.Values{"username": {name}, "password": {password}, "next": {"/"}}).mustRedirect(c.s.t, "/")
}

// letter is a mail found in the site's mail folder.
type letter struct {
	To, Subject string
	Text, HTML  string
	Date        time.Time
}

// mails returns the mail in the folder, oldest first.
func (s *site) mails() []letter {
	s.t.Helper()
	files, err := filepath.Glob(filepath.Join(s.mailDir, "*.eml"))
	if err != nil {
		s.t.Fatal(err)
	}
	var out []letter
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), ".") {
			continue // being written
		}
		data, err := os.ReadFile(f)
		if err != nil {
			s.t.Fatal(err)
		}
		out = append(out, parseMail(s.t, data))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Date.Before(out[j].Date) })
	return out
}

// waitMail waits up to 15 s for a mail to addr whose subject or text
// contains subject (a game's emails share one subject: their first line
// says what each is about), and returns the newest.
func (s *site) waitMail(addr, subject string) letter {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var found []letter
		for _, m := range s.mails() {
			if strings.Contains(m.To, addr) && (strings.Contains(m.Subject, subject) || strings.Contains(m.Text, subject)) {
				found = append(found, m)
			}
		}
		if len(found) > 0 {
			return found[len(found)-1]
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no mail to %s about %q in %d mails", addr, subject, len(s.mails()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func parseMail(t testing.TB, data []byte) letter {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	dec := new(mime.WordDecoder)
	subject, _ := dec.DecodeHeader(m.Header.Get("Subject"))
	l := letter{To: m.Header.Get("To"), Subject: subject}
	l.Date, _ = m.Header.Date()
	_, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var r io.Reader = p
		if p.Header.Get("Content-Transfer-Encoding") == "quoted-printable" {
			r = quotedprintable.NewReader(p)
		}
		body, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") {
			l.HTML = string(body)
		} else {
			l.Text = string(body)
		}
	}
	return l
}

var (
	hrefPattern = regexp.MustCompile(`href="([^"]+)"`)
	urlPattern  = regexp.MustCompile(`https?://[^\s"<>]+`)
)

// links returns every link of the mail: the hrefs of its HTML body and the
// addresses in its text body, each once, unescaped.
func (l letter) links() []string {
	seen := map[string]bool{}
	var out []string
	add := func(u string) {
		u = strings.ReplaceAll(u, "&amp;", "&")
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	for _, m := range hrefPattern.FindAllStringSubmatch(l.HTML, -1) {
		add(m[1])
	}
	for _, m := range urlPattern.FindAllString(l.Text, -1) {
		add(m)
	}
	return out
}

// link returns the mail's first link whose path starts with prefix.
func (l letter) link(t testing.TB, prefix string) string {
	t.Helper()
	for _, u := range l.links() {
		if p, err := url.Parse(u); err == nil && strings.HasPrefix(p.Path, prefix) {
			return u
		}
	}
	t.Fatalf("the mail %q has no link to %s...: %v", l.Subject, prefix, l.links())
	return ""
}

// apiUser is an account used through the JSON API, for the games the
// tests need before the pages can make them.
type apiUser struct {
	ID     int64
	Name   string
	Access string
}

// apiCall calls the JSON API with a bearer token and decodes the answer;
// a status of 300 or more fails the test.
func (s *site) apiCall(method, path, token string, body, out any) int {
	s.t.Helper()
	status, data := s.apiTry(method, path, token, body)
	if status >= 300 {
		s.t.Fatalf("%s %s: %d %s", method, path, status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			s.t.Fatal(err)
		}
	}
	return status
}

// apiTry calls the JSON API with a bearer token ("" for none) and returns
// the status and the body, whatever the status.
func (s *site) apiTry(method, path, token string, body any) (int, []byte) {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.url+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer r.Body.Close()
	data, _ := io.ReadAll(r.Body)
	return r.StatusCode, data
}

// apiLogin logs name in through the JSON API.
func (s *site) apiLogin(name, password string) apiUser {
	s.t.Helper()
	var out struct {
		AccessToken string `json:"access_token"`
		User        struct {
			ID int64 `json:"id"`
		} `json:"user"`
	}
	s.apiCall(http.MethodPost, "/v1/auth/login", "", map[string]string{"username": name, "password": password}, &out)
	return apiUser{ID: out.User.ID, Name: name, Access: out.AccessToken}
}

// startGame has a create a private 2-player game inviting b, b join, and
// a start it, through the JSON API, and returns its id.
func (s *site) startGame(a, b apiUser) int64 {
	s.t.Helper()
	deck := map[string]string{"prebuilt": "running-a-startup"}
	var g struct {
		ID int64 `json:"id"`
	}
	s.apiCall(http.MethodPost, "/v1/games", a.Access, map[string]any{"players": 2, "mode": "fast", "deck": deck,
		"invite": []string{b.Name}, "turn_deadline_seconds": 86400, "public": false}, &g)
	s.apiCall(http.MethodPost, "/v1/games/"+itoa(g.ID)+"/join", b.Access, map[string]any{"deck": deck}, nil)
	s.apiCall(http.MethodPost, "/v1/games/"+itoa(g.ID)+"/start", a.Access, nil, nil)
	return g.ID
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// stage sets game id to the position doc (the scenario format): its
// state, the events of its setup (as a change of the game would record
// them, with their notifications), and the seats it waits for.
func (s *site) stage(t *testing.T, id int64, doc string) {
	t.Helper()
	modelstest.Stage(t, s.store, id, doc, s.clock.Now())
}

// cheapHash hashes the tests' passwords at a small cost: at a server's,
// the hundreds of accounts they register were a third of their CPU. Any
// cost checks (accounts.TestPasswordCost).
func cheapHash(p string) string { return accounts.HashPasswordCost(p, 1, 64) }

// anaAndBob registers ana and bob through the register form (each
// password "<name> password") and starts a game of theirs: the opening of
// many tests.
func (s *site) anaAndBob() (ana, bob apiUser, id int64) {
	s.client().register("ana", "ana password")
	s.client().register("bob", "bob password")
	ana, bob = s.apiLogin("ana", "ana password"), s.apiLogin("bob", "bob password")
	return ana, bob, s.startGame(ana, bob)
}
