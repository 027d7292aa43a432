package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
	_ "time/tzdata" // time zones load on machines without a zoneinfo folder

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/internal/bounded"
	"github.com/datamonsters/turns/internal/router"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
	"github.com/gin-gonic/gin"
)

// Config is what the pages need to know. BaseURL and Secret are required.
type Config struct {
	// BaseURL is the service's public address ("https://dm.example.com"):
	// cookies are Secure when it is https, and its origin is trusted by the
	// cross-origin check (for a proxy that rewrites Host).
	BaseURL string
	// Secret signs the links of emails: the sign-in links (the outbox's
	// SignInSecret, the same bytes), address verification and password
	// reset. At least 32 bytes.
	Secret []byte
	// MailDomain is the right-hand side of the Message-IDs of the mail the
	// pages send (normally notifier.EmailConfig.Domain()); "" is localhost.
	MailDomain string
	// Play is the play path: every change of a game the pages make goes
	// through it, and every board is read from it. Required.
	Play *play.Service
	// Accounts are the accounts: sign-ins, sessions, settings. Every
	// change of an account the pages make goes through them. Required.
	Accounts *accounts.Service
	// Hub is the live stream's hub, on which a board hears that its game
	// moved (nil: boards do not update by themselves; a reload shows the
	// news).
	Hub *notifier.Hub
	// Presence records the boards' live connections in the database, for
	// the other processes (Postgres, where a game change announces its
	// events only to games someone follows); nil with SQLite.
	Presence *notifier.Presence
	// Heartbeat is the live stream's ": ping" interval, at which a
	// signed-in reader's stream also checks that their session is still
	// live (0: 25 s).
	Heartbeat time.Duration
	// Replies says that replies to decision emails come in (the inbound
	// mail door is on): only then do the pages offer playing by reply.
	Replies bool
	// Readers is how many page reads (GET and HEAD, the live streams
	// aside) are served at once; more wait their turn, first come first
	// served. 0 means twice GOMAXPROCS. A read is mostly CPU (a session
	// and a game from the database, a board rendered): past that many, more
	// at once only take turns on the cores, and the unlucky ones wait
	// longest.
	Readers int
}

// Pages serves the browser's pages. Build it with New; it is safe for
// concurrent use.
type Pages struct {
	cfg    Config
	play   *play.Service
	acc    *accounts.Service
	store  *models.Store
	mail   notifier.Sender
	log    *slog.Logger
	now    func() time.Time
	secure bool // cookies get Secure (BASE_URL is https)
	cop    *http.CrossOriginProtection
	pages  map[string]*page
	assets *assets
	head   [3]string                          // the layout's icon, style and script addresses
	boards *bounded.Map[boardKey, *boardView] // the boards read lately
	turns  chan struct{}                      // a token per page read being served (Config.Readers)
	queued atomic.Int64                       // page reads waiting for a turn
}

// New returns the pages. mail sends the verification and reset emails
// (nil: they cannot be sent, and the pages say so). now is the clock (nil
// means time.Now); log may be nil.
func New(store *models.Store, mail notifier.Sender, cfg Config, log *slog.Logger, now func() time.Time) (*Pages, error) {
	if store == nil || cfg.Play == nil || cfg.Accounts == nil {
		return nil, errors.New("web: pages need a store, the play path and the accounts")
	}
	if len(cfg.Secret) < 32 {
		return nil, errors.New("web: the link secret must have at least 32 bytes")
	}
	base, err := url.Parse(cfg.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("web: BASE_URL %q: want an absolute http(s) URL", cfg.BaseURL)
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.Readers <= 0 {
		cfg.Readers = 2 * runtime.GOMAXPROCS(0)
	}
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	p := &Pages{cfg: cfg, play: cfg.Play, acc: cfg.Accounts, store: store, mail: mail, log: log, now: now, secure: base.Scheme == "https",
		cop: http.NewCrossOriginProtection(), boards: bounded.New[boardKey, *boardView](2048),
		turns: make(chan struct{}, cfg.Readers)}
	if err := p.cop.AddTrustedOrigin(base.Scheme + "://" + base.Host); err != nil {
		return nil, fmt.Errorf("web: BASE_URL: %w", err)
	}
	st, err := loadStatic()
	if err != nil {
		return nil, err
	}
	p.assets, p.pages = st.assets, st.pages
	for i, name := range []string{"favicon.svg", "style.css", "app.js"} {
		if p.head[i], err = p.assets.url(name); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Routes adds the pages' routes to r. It reads like the site's map.
func (p *Pages) Routes(r *gin.Engine) {
	r.GET(assetPrefix+":file", p.handle(p.asset))
	r.HEAD(assetPrefix+":file", p.handle(p.asset))

	base := r.Group("", p.recover, p.headers, p.crossOrigin, p.storable)
	// A board's live stream lasts as long as the page is open: it takes no
	// reader's turn.
	base.GET(notifier.GamesPath+":id/live", p.session, p.handle(p.live))
	g := base.Group("", p.inTurn, p.session)

	// Anyone: accounts, and the links of emails (each GET shows a page
	// whose button posts).
	g.GET("/", p.handle(p.home))
	g.GET(rulesPath, p.rules)
	g.GET("/register", p.registerPage)
	g.POST("/register", p.handle(p.register))
	g.GET("/login", p.loginPage)
	g.POST("/login", p.handle(p.login))
	g.POST("/logout", p.logout)
	g.GET("/verify", p.handle(p.verifyPage))
	g.POST("/verify", p.handle(p.verify))
	g.GET("/reset", p.resetPage)
	g.POST("/reset", p.handle(p.resetRequest))
	g.GET("/reset/new", p.handle(p.newPasswordPage))
	g.POST("/reset/new", p.handle(p.newPassword))
	g.GET(notifier.SignInPath, p.handle(p.signInPage))
	g.POST(notifier.SignInPath, p.handle(p.signIn))
	// A public game's page, and the version its script polls, need no
	// account; the reader's session is checked along the game's read.
	base.GET(notifier.GamesPath+":id", p.inTurn, p.boardSession, p.handle(p.game))
	base.GET(notifier.GamesPath+":id/state", p.inTurn, p.boardSession, p.handle(p.gameState))
	g.GET(notifier.GamesPath+":id/log", p.handle(p.gameLog))
	g.GET(notifier.GamesPath+":id"+notifier.ActionPath, p.handle(p.actPage)) // the token is the credential
	g.POST(notifier.GamesPath+":id"+notifier.ActionPath, p.handle(p.act))
	g.GET(playersPath+":name", p.handle(p.player))
	g.GET(invitePath, p.handle(p.invitePage))
	g.GET(joinPath, p.handle(p.joinLinkPage))

	// Signed in.
	my := g.Group("", p.requireAccount)
	my.GET(newGamePath, p.handle(p.newGamePage))
	my.GET(lobbyStatePath, p.handle(p.lobbyState))
	my.POST("/games", p.handle(p.createGame))
	my.POST(notifier.GamesPath+":id/join", p.handle(p.join))
	my.POST(notifier.GamesPath+":id/leave", p.handle(p.leave))
	my.POST(notifier.GamesPath+":id/start", p.handle(p.start))
	my.POST(notifier.GamesPath+":id/cancel", p.handle(p.cancel))
	my.POST(notifier.GamesPath+":id/invite", p.handle(p.invite))
	my.POST(notifier.GamesPath+":id/play", p.handle(p.playAction))
	my.POST(notifier.GamesPath+":id/messages", p.handle(p.postMessage))
	my.POST(notifier.GamesPath+":id/messages/mute", p.handle(p.muteMessages))
	my.POST(invitePath, p.handle(p.acceptInvitation))
	my.POST(joinPath, p.handle(p.joinByLink))
	my.POST("/settings/delete", p.handle(p.deleteAccount))
	my.GET(notifier.SettingsPath, p.handle(p.settings))
	my.POST("/settings/email", p.handle(p.changeEmail))
	my.POST("/settings/verify", p.handle(p.resendVerification))
	my.POST("/settings/time-zone", p.handle(p.changeTimeZone))
	my.POST("/settings/notifications", p.handle(p.changePreferences))
	my.POST("/settings/quiet-hours", p.handle(p.changeQuietHours))
	my.POST("/settings/quiet-hours/off", p.handle(p.quietHoursOff))
	my.POST("/settings/email-replies", p.handle(p.changeEmailReplies))
	my.POST("/settings/vacations", p.handle(p.startVacation))
	my.POST("/settings/vacations/:id/end", p.handle(p.endVacation))
	my.POST("/settings/calendar", p.handle(p.newCalendar))
	my.POST("/settings/calendar/off", p.handle(p.calendarOff))
	my.GET(pushPath, p.handle(p.pushPage))
	my.POST(pushPath, p.handle(p.pushOn))
	my.POST(pushPath+"/off", p.handle(p.pushOff))
	my.POST(pushPath+"/:id/off", p.handle(p.pushDeviceOff))
	my.POST("/settings/tokens", p.handle(p.createToken))
	my.POST("/settings/tokens/:id/revoke", p.handle(p.revokeToken))
	my.POST("/settings/sessions/end", p.handle(p.endSessions))
	my.POST(notifier.GamesPath+":id/reclaim", p.handle(p.reclaim))
	my.POST(notifier.GamesPath+":id/rematch", p.handle(p.rematch))
	my.POST(notifier.GamesPath+":id/decline", p.handle(p.decline))
}

// NotFound answers a page's path that no route takes with the not-found
// page.
func (p *Pages) NotFound(c *gin.Context) {
	setHeaders(c)
	p.loadSession(c)
	p.fail(c, errNotFound)
}

// MethodNotAllowed answers a request whose method a page does not take
// (a GET of /logout) with the error page.
func (p *Pages) MethodNotAllowed(c *gin.Context) {
	setHeaders(c)
	p.loadSession(c)
	p.fail(c, errMethod)
}

// Failed answers a request whose handler panicked outside the pages' own
// recover (see recover) with the error page.
func (p *Pages) Failed(c *gin.Context) {
	setHeaders(c)
	p.fail(c, errors.New("panic"))
}

// recover turns a panic in a page into the error page.
func (p *Pages) recover(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			p.log.Error("panic in a page", "request_id", c.GetString(router.CtxRequestID), "panic", v)
			p.fail(c, fmt.Errorf("panic: %v", v))
		}
	}()
	c.Next()
}

// headers sets the pages' headers (setHeaders) for the handlers after it.
func (p *Pages) headers(c *gin.Context) {
	setHeaders(c)
	c.Next()
}

// setHeaders sets what every page sends: a strict Content-Security-Policy
// (the pages load only their own style and script), no framing, no
// sniffing, no Referer to other sites (a sign-in link's token is in its
// URL), and no caching of pages that show an account.
func setHeaders(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// crossOrigin refuses state-changing requests that a browser says come
// from another site (Sec-Fetch-Site, else Origin against Host; see
// net/http.CrossOriginProtection). Safe methods pass.
func (p *Pages) crossOrigin(c *gin.Context) {
	if err := p.cop.Check(c.Request); err != nil {
		p.fail(c, errCrossOrigin)
		return
	}
	c.Next()
}

// storable refuses, before any handler reads it, a request whose query or
// form holds a name or value that a database cannot store as sent: one
// with a NUL character, which Postgres refuses in text (SQLite would keep
// it), or with bytes that are not UTF-8. The page names the field; the
// API's decode refuses the same in a JSON body.
func (p *Pages) storable(c *gin.Context) {
	r := c.Request
	if r.Method == http.MethodPost {
		// A body that is no form is the handlers' to meet, as before: they
		// read its fields as empty.
		_ = r.ParseMultipartForm(32 << 20)
	} else {
		_ = r.ParseForm()
	}
	for name, values := range r.Form {
		bad := !models.Storable(name)
		for _, v := range values {
			bad = bad || !models.Storable(v)
		}
		if !bad {
			continue
		}
		field := "A field’s name"
		if models.Storable(name) {
			field = "The field “" + name + "”"
		}
		p.loadSession(c) // the page's header shows who is signed in
		p.fail(c, &pageError{http.StatusUnprocessableEntity, "That cannot be kept",
			field + " holds a character this service cannot keep: a NUL, or bytes that are not UTF-8 text. Nothing was changed."})
		return
	}
	c.Next()
}

// localPath returns next if it is a path on this site ("/games/3"), else
// "/": a sign-in never sends anyone to another site. Backslashes and
// control characters are refused too, since browsers read "/\evil" and
// "/\t/evil" as "//evil".
func localPath(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.ContainsFunc(next, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) {
		return "/"
	}
	return next
}

// redirect answers a form post with 303 See Other to path.
func redirect(c *gin.Context, path string) {
	c.Redirect(http.StatusSeeOther, path)
	c.Abort()
}
