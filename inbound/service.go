package inbound

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/datamonsters/turns/internal/mac"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
	"github.com/datamonsters/turns/play"
	"github.com/datamonsters/turns/refusal"
	"github.com/emersion/go-msgauth/dkim"
)

// Outcome is what became of an inbound message.
type Outcome string

// Outcomes.
const (
	Applied   Outcome = "applied"   // its moves were played; the answer says what
	Refused   Outcome = "refused"   // nothing was played; the answer, if any, says why
	Dropped   Outcome = "dropped"   // an automatic message or a loop: nothing played, nothing answered
	Duplicate Outcome = "duplicate" // a message already handled, delivered again: nothing more
	Answered  Outcome = "answered"  // it asked for help or the board: answered, nothing played
	Said      Outcome = "said"      // its messages ("say") were posted, and nothing played
)

// Result is what Receive did with a message: its outcome, the reason
// (for people; "" when applied), the game and seat it was for, and
// whether an answer was written to the outbox.
type Result struct {
	Outcome  Outcome
	Reason   string
	GameID   int64
	Version  int64 // the game's version after it; 0 when unknown
	Answered bool
}

// Envelope is a message as it arrived: the SMTP return path (MAIL FROM;
// "" for a null one, and for mail that came over HTTP, where HasReturnPath
// is false), its recipients (RCPT TO; none over HTTP, where the To and Cc
// headers are read instead), and its bytes.
type Envelope struct {
	MailFrom      string
	HasReturnPath bool
	Rcpt          []string
	Raw           []byte
}

// Config is what the inbound path needs. Play, Outbox, ReplySecret and
// Domain are required.
type Config struct {
	Play   *play.Service
	Outbox *notifier.Outbox
	// Reply is how reply addresses are signed and their domain.
	Reply notifier.ReplyConfig
	// Email is the outbound configuration: its From address and Domain()
	// (the Message-IDs of the service's own mail) tell a message that came
	// back from a reply; BaseURL makes the answers' links.
	Email notifier.EmailConfig
	// RateKey keys the hash of a sender's address in the rate limit table.
	RateKey []byte
	// Rate limits the replies of one address (zero: 30 at once, one more
	// every 2 seconds).
	Rate models.RateLimit
	// Refusals limits the answers to refused replies: per decision (a
	// reply address's game, seat, user and version) and per sender, so
	// that an auto-responder without auto-reply headers does not trade
	// mail with the service for ever (zero: 3 per decision, one more every
	// 20 minutes; 5 per sender, one more every 12 minutes). A refusal past
	// them is recorded and logged, not answered.
	Refusals, RefusalsPerSender models.RateLimit
	// MaxReceived is the most Received headers a message may carry before
	// it is taken for a loop (zero: 30).
	MaxReceived int
	// LookupTXT resolves the DKIM keys (nil: DNS, bounded by 3 seconds).
	LookupTXT func(domain string) ([]string, error)
	Logger    *slog.Logger
	Now       func() time.Time
}

// Service reads replies to decision emails and plays them through the
// play path, answering each in the game's thread through the outbox.
type Service struct {
	cfg Config
	log *slog.Logger
	now func() time.Time
}

// New returns the inbound path.
func New(cfg Config) (*Service, error) {
	if cfg.Play == nil || cfg.Outbox == nil || !cfg.Reply.Enabled() {
		return nil, errors.New("inbound: needs the play path, the outbox and a reply secret and domain")
	}
	if cfg.Rate.Burst <= 0 {
		cfg.Rate = models.RateLimit{Burst: 30, Every: 2 * time.Second}
	}
	if cfg.Refusals.Burst <= 0 {
		cfg.Refusals = models.RateLimit{Burst: 3, Every: 20 * time.Minute}
	}
	if cfg.RefusalsPerSender.Burst <= 0 {
		cfg.RefusalsPerSender = models.RateLimit{Burst: 5, Every: 12 * time.Minute}
	}
	if cfg.MaxReceived <= 0 {
		cfg.MaxReceived = 30
	}
	if cfg.RateKey == nil {
		cfg.RateKey = cfg.Reply.Secret
	}
	s := &Service{cfg: cfg, log: cfg.Logger, now: cfg.Now}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// RefusalAnswer is the one place the email door says a refusal's kind
// (refusal.KindOf): the sentence that answers a reply refused for err, in
// game gameID, ending with what was not done (undone: "nothing was
// played"), from what a refusal says of itself or else its kind. ok is
// false for a temporary kind (too many replies, the database away, a
// failure of the server): such a message is not answered but refused for
// now, and its sender delivers it again later; the sentence is then what
// the sending server is told.
func RefusalAnswer(err error, gameID int64, undone string) (text string, ok bool) {
	k := refusal.KindOf(err)
	var (
		re *refusal.Error
		rl *refusal.RateLimitError
	)
	switch {
	case errors.As(err, &rl):
		return fmt.Sprintf("too many replies from this address; try again in %v", rl.Retry.Round(time.Second)), false
	case k.Temporary():
		return "temporary failure; try again later", false
	case errors.As(err, &re):
		return engine.Capitalize(re.Detail) + "; " + undone + ".", true
	case k == refusal.NotFound:
		return fmt.Sprintf("Game %d is not one of yours; %s.", gameID, undone), true
	}
	words := map[refusal.Kind]string{refusal.Invalid: "This reply cannot be played as it is written",
		refusal.Conflict: "The game does not allow it now", refusal.Forbidden: "That is not yours to do in this game",
		refusal.Unauthorized: "This reply address is not good for you", refusal.TooLarge: "This reply is larger than the service reads"}
	return words[k] + "; " + undone + ".", true
}

// CheckRecipient reports whether addr is a reply address this service
// signed, at its domain (expired or not: an expired one is answered).
func (s *Service) CheckRecipient(addr string) error {
	r, err := s.reply(addr)
	if err != nil {
		return err
	}
	if !r.Valid(s.cfg.Reply.Secret) {
		return errBadToken
	}
	return nil
}

var (
	errNotReply = errors.New("not a reply address of this service")
	errBadToken = errors.New("the reply address is not one this service wrote (its signature does not match)")
)

// reply parses addr as a reply address at the service's domain.
func (s *Service) reply(addr string) (notifier.Reply, error) {
	addr = strings.ToLower(strings.Trim(strings.TrimSpace(addr), "<>"))
	at := strings.LastIndexByte(addr, '@')
	if at < 0 || addr[at+1:] != strings.ToLower(s.cfg.Reply.Domain) {
		return notifier.Reply{}, errNotReply
	}
	r, err := notifier.ParseReplyAddress(addr)
	if err != nil {
		return notifier.Reply{}, errNotReply
	}
	return r, nil
}

// threadRe reads a game's id from the root of its email thread.
var threadRe = regexp.MustCompile(`^game-(\d+)(?:\.|@)`)

// Receive handles one inbound message: it refuses automatic messages,
// loops, forged or expired reply addresses, senders who are not the
// address's user, and replies to seats that are not theirs; reads the
// commands of the reply's own text against the lines of the email it
// answers; submits them as one batch through the play path; and writes
// the answer to the outbox, in the game's thread. A message is handled
// once by its Message-ID. An error is a failure to handle it (the store,
// the outbox) or a *refusal.RateLimitError: the sender should deliver it
// again later.
func (s *Service) Receive(ctx context.Context, env Envelope) (Result, error) {
	m, err := Parse(env.Raw)
	if err != nil {
		s.log.Info("inbound: unreadable message dropped", "error", err)
		return Result{Outcome: Dropped, Reason: "the message is not readable as email"}, nil
	}
	s.checkDKIM(env.Raw, m)
	log := s.log.With("message_id", notifier.CleanHeaderText(m.MessageID, 200), "from", m.From)
	// Automatic messages are never answered: an answer would feed a loop.
	switch {
	case m.AutoReply != "":
		log.Info("inbound: automatic message dropped", "header", notifier.CleanHeaderText(m.AutoReply, 200))
		return Result{Outcome: Dropped, Reason: "an automatic message (" + notifier.CleanHeaderText(m.AutoReply, 100) + ")"}, nil
	case m.Report:
		log.Info("inbound: delivery report dropped")
		return Result{Outcome: Dropped, Reason: "a delivery status report"}, nil
	case env.HasReturnPath && env.MailFrom == "" || m.ReturnEmpty:
		log.Info("inbound: message with a null return path dropped")
		return Result{Outcome: Dropped, Reason: "a message with an empty return path (a bounce)"}, nil
	case s.ours(m):
		log.Info("inbound: the service's own message came back; dropped")
		return Result{Outcome: Dropped, Reason: "a message this service sent"}, nil
	}
	hash := idHash(m, env.Raw)
	if seen, err := s.cfg.Play.Store().InboundSeen(ctx, hash); err != nil {
		return Result{}, err
	} else if seen {
		log.Info("inbound: message handled before; not answered again")
		return Result{Outcome: Duplicate, Reason: "this message was handled before"}, nil
	}
	if rate, err := s.cfg.Play.Store().TakeRate(ctx, s.rateKey(m.From), s.cfg.Rate, s.now()); err != nil {
		return Result{}, err
	} else if rate.Wait > 0 {
		return Result{}, &refusal.RateLimitError{Retry: rate.Wait}
	}
	// The reply address: among the envelope's recipients, or the headers'.
	rcpts := env.Rcpt
	if len(rcpts) == 0 {
		rcpts = m.To
	}
	var r notifier.Reply
	err = errNotReply
	for _, a := range rcpts {
		if r, err = s.reply(a); err == nil {
			break
		}
	}
	if err != nil {
		return s.unanswered(ctx, hash, log, "no recipient is a reply address of this service")
	}
	if !r.Valid(s.cfg.Reply.Secret) {
		return s.unanswered(ctx, hash, log, errBadToken.Error())
	}
	a := &answer{s: s, hash: hash, reply: r, mail: m, log: log.With("game", r.GameID, "user", r.UserID, "version", r.Version)}
	return a.handle(ctx)
}

// unanswered records a refused message that no one can be told of.
func (s *Service) unanswered(ctx context.Context, hash []byte, log *slog.Logger, reason string) (Result, error) {
	log.Info("inbound: refused, not answered", "reason", reason)
	if _, err := s.cfg.Play.Store().RecordInbound(ctx, models.InboundMessage{IDHash: hash, Outcome: string(Refused), ReceivedAt: s.now()}); err != nil {
		return Result{}, err
	}
	return Result{Outcome: Refused, Reason: reason}, nil
}

// ours reports whether m is a message the service sent: its Message-ID
// has the form and domain of the service's, or it is from the service's
// own address.
func (s *Service) ours(m *Mail) bool {
	dom := "@" + s.cfg.Email.Domain()
	if strings.HasSuffix(strings.ToLower(m.MessageID), dom) &&
		(strings.HasPrefix(m.MessageID, "game-") || strings.HasPrefix(m.MessageID, "dm.")) {
		return true
	}
	return m.From != "" && strings.EqualFold(m.From, s.cfg.Email.From.Address)
}

// idHash is the SHA-256 of the message's Message-ID, or of its bytes when
// it has none.
func idHash(m *Mail, raw []byte) []byte {
	h := sha256.New()
	if m.rawID != "" {
		h.Write([]byte("id:" + m.rawID))
	} else {
		h.Write([]byte("raw:"))
		h.Write(raw)
	}
	return h.Sum(nil)
}

func (s *Service) rateKey(from string) []byte {
	return s.key("inbound reply from " + strings.ToLower(from))
}

// key is the keyed hash of name, for the rate limit table, which holds no
// address or id in the clear.
func (s *Service) key(name string) []byte {
	return mac.Sum(s.cfg.RateKey, "inbound rate limit", []byte(name))
}

// mayRefuse takes a refusal answer to the reply r from the sender from,
// and reports whether one is left, for the decision and for the sender;
// when this answer is the last one the limits allow for now, until is when
// the next could be taken (zero: more are left).
func (s *Service) mayRefuse(ctx context.Context, r notifier.Reply, from string) (ok bool, until time.Time, err error) {
	now := s.now()
	decision := fmt.Sprintf("inbound refusals of game %d seat %d user %d version %d", r.GameID, r.Seat, r.UserID, r.Version)
	for _, b := range []struct {
		key   []byte
		limit models.RateLimit
	}{{s.key(decision), s.cfg.Refusals}, {s.key("inbound refusals to " + strings.ToLower(from)), s.cfg.RefusalsPerSender}} {
		rs, err := s.cfg.Play.Store().TakeRate(ctx, b.key, b.limit, now)
		if err != nil || rs.Wait > 0 {
			return false, time.Time{}, err
		}
		if rs.Left == 0 {
			// The next attempt fits once the bucket is Burst-1 from full.
			next := now.Add(rs.Full - time.Duration(max(b.limit.Burst, 1)-1)*b.limit.Every)
			if next.After(until) {
				until = next
			}
		}
	}
	return true, until, nil
}

// checkDKIM verifies the message's DKIM signatures when it carries any,
// and logs the result; it decides nothing.
func (s *Service) checkDKIM(raw []byte, m *Mail) {
	if !bytes.Contains(raw, []byte("DKIM-Signature:")) && !bytes.Contains(bytes.ToLower(raw), []byte("dkim-signature:")) {
		return
	}
	lookup := s.cfg.LookupTXT
	if lookup == nil {
		lookup = func(domain string) ([]string, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			return net.DefaultResolver.LookupTXT(ctx, domain)
		}
	}
	vs, err := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{LookupTXT: lookup, MaxVerifications: 5})
	if err != nil {
		s.log.Info("inbound: dkim unreadable", "message_id", notifier.CleanHeaderText(m.MessageID, 200), "error", err)
		return
	}
	for _, v := range vs {
		result := "pass"
		if v.Err != nil {
			result = "fail: " + v.Err.Error()
		}
		s.log.Info("inbound: dkim", "message_id", notifier.CleanHeaderText(m.MessageID, 200), "domain", v.Domain, "result", result)
	}
}

// answer is the handling of one reply with a valid address.
type answer struct {
	s     *Service
	hash  []byte
	reply notifier.Reply
	mail  *Mail
	log   *slog.Logger

	user  *models.User
	data  notifier.ReplyAnswer
	board bool     // the reply asked for the board: shown even to a seat that waits
	says  []string // the reply's messages ("say" lines), posted once its moves are played
	// reason is how the game ended, when the reply's change ended it
	// (its game_over event); "" for not known.
	reason string
}

// handle checks the reply's sender and seat, plays its commands and
// writes the answer.
func (a *answer) handle(ctx context.Context) (Result, error) {
	s, r := a.s, a.reply
	st := s.cfg.Play.Store()
	u, err := st.UserByID(ctx, r.UserID)
	if errors.Is(err, models.ErrNotFound) {
		return s.unanswered(ctx, a.hash, a.log, "the reply address's user no longer exists")
	}
	if err != nil {
		return Result{}, err
	}
	a.user = u
	if u.Email == "" {
		return s.unanswered(ctx, a.hash, a.log, "the reply address's user has no email address")
	}
	if !strings.EqualFold(a.mail.From, u.Email) {
		// Told to the address's owner, never to the sender: a forged From
		// gets no mail back.
		return a.refuse(ctx, fmt.Sprintf("A reply to your reply address came from %s, which is not your address (%s); nothing was played. Reply from the address the email was sent to.",
			notifier.CleanHeaderText(orNone(a.mail.From), 100), u.Email), "")
	}
	if a.mail.Received > s.cfg.MaxReceived {
		return a.refuse(ctx, fmt.Sprintf("This reply went through %d mail servers (more than %d): it looks like a mail loop, so nothing was played.",
			a.mail.Received, s.cfg.MaxReceived), "")
	}
	if r.Expired(s.now()) {
		return a.refuse(ctx, "The email you answered expired at "+r.Expires.Format("Mon 2 Jan 2006, 15:04 MST")+
			", its decision's deadline; nothing was played.", "")
	}
	for _, id := range append(slices.Clone(a.mail.InReplyTo), a.mail.References...) {
		if !strings.HasSuffix(strings.ToLower(id), "@"+s.cfg.Email.Domain()) {
			continue
		}
		if m := threadRe.FindStringSubmatch(id); m != nil && m[1] != strconv.FormatInt(r.GameID, 10) {
			return a.refuse(ctx, "This reply is in the thread of game "+m[1]+" but its address is for game "+
				strconv.FormatInt(r.GameID, 10)+"; nothing was played.", "")
		}
	}
	set, err := st.MailSettingsOf(ctx, u.ID, r.GameID)
	if err != nil {
		return Result{}, err
	}
	if !set.RepliesOn() {
		return a.refuse(ctx, "You turned off playing by email for this game; nothing was played. Turn it back on in your settings to answer by email.", "")
	}
	return a.play(ctx)
}

func orNone(s string) string {
	if s == "" {
		return "no address"
	}
	return s
}

// play reads the reply's commands: moves are resolved against the game
// at the email's version, one after another, and submitted as one batch;
// help and board are answered, a control (resign, vote end, join,
// decline) is carried out.
func (a *answer) play(ctx context.Context) (Result, error) {
	s, r := a.s, a.reply
	p := s.cfg.Play
	if r.Talk {
		return a.talkBack(ctx)
	}
	rd, err := play.ReadCommands(Cut(a.mail.Text))
	if rd != nil {
		a.data.Skipped, a.says = rd.Skipped, rd.Says
	}
	var ce *play.CommandError
	if errors.As(err, &ce) {
		return a.refuseCommands(ctx, ce)
	}
	if err != nil {
		return Result{}, err
	}
	if rd.Help {
		a.data.Help = HelpText
	}
	a.board = rd.Board
	if rd.Control != play.NoControl {
		return a.control(ctx, rd)
	}
	if !rd.Moves() {
		return a.info(ctx)
	}
	var actions []engine.Action
	var texts []string
	var notYours, notActive string
	err = p.Read(ctx, r.GameID, r.UserID, func(g *models.Game, seat int, cur *engine.State) error {
		switch {
		case seat != r.Seat || r.Seat >= len(g.Seats) || g.Seats[r.Seat].UserID == nil || *g.Seats[r.Seat].UserID != r.UserID:
			notYours = fmt.Sprintf("Seat %d of game %d is not yours; nothing was played.", r.Seat+1, r.GameID)
			return nil
		case g.Status != models.StatusActive || cur == nil:
			notActive = "The game is " + g.Status + "; nothing was played."
			return nil
		}
		at := cur
		// Standing answers alone depend on no version: they are read
		// against the game as it is (the seat's answers as they are now)
		// and set whatever moved since the email (play.Service.Submit).
		// So are moves written before standing answers alone were set,
		// which change no line of any list.
		standing := rd.StandingOnly()
		if g.Version != r.Version && !standing && !p.OnlyStandingSince(ctx, g.ID, r.Version, g.Version) {
			full, err := p.Store().Game(ctx, g.ID)
			if err != nil {
				return err
			}
			if at, err = p.Replay(ctx, full, cur, r.Version); err != nil {
				a.log.Warn("inbound: the email's version does not replay", "error", err)
				notActive = "The game moved on since the email you answered, and its list cannot be rebuilt; nothing was played."
				return nil
			}
		}
		var lines []engine.Line
		if !r.General && !standing {
			var same bool
			lines, same = engine.NumberedFor(at.View(r.Seat).Moves(engine.Legal(at, r.Seat)), r.Lines)
			if !same {
				notActive = "The moves are numbered differently since the email you answered was written, so its numbers may not name the moves it showed; nothing was played. Answer the newest email, or open the game."
				return nil
			}
		}
		plan, err := play.Resolve(at, r.Seat, lines, rd)
		if err != nil {
			if !errors.As(err, &ce) {
				return err
			}
			return nil
		}
		actions, texts = plan.Actions, plan.Texts
		a.data.Skipped = play.Skipped(rd, plan)
		return nil
	})
	switch {
	case err != nil:
		if text, ok := RefusalAnswer(err, r.GameID, "nothing was played"); ok {
			return a.refuse(ctx, text, "")
		}
		return Result{}, err
	case notYours != "":
		return a.refuse(ctx, notYours, "")
	case notActive != "":
		return a.refuse(ctx, notActive, "")
	case ce != nil:
		return a.refuseCommands(ctx, ce)
	}
	rec := &play.Record{Key: models.Key{UserID: r.UserID, Key: "email:" + hex.EncodeToString(a.hash[:16])}, Answered: true,
		Make: func(*play.Result) (*models.Idempotency, error) {
			body, _ := json.Marshal(texts)
			return &models.Idempotency{UserID: r.UserID, Key: "email:" + hex.EncodeToString(a.hash[:16]), RequestHash: a.hash,
				Status: 200, Response: body}, nil
		}}
	version := r.Version
	res, err := p.Submit(ctx, r.GameID, r.UserID, &version, actions, rec)
	var stale *play.StaleVersionError
	var batch *play.BatchError
	switch {
	case err == nil:
		defer res.Done()
		return a.applied(ctx, res, texts)
	case errors.Is(err, models.ErrConflict), errors.Is(err, models.ErrKeyStored):
		// Played before, by an earlier delivery of this message whose answer
		// was not written: answer it now.
		return a.appliedBefore(ctx, texts)
	case errors.As(err, &stale):
		a.data.Taken = true
		return a.refuse(ctx, fmt.Sprintf("The game moved on since the email you answered (written at version %d; it is at version %d now): that decision was already taken, or the board changed. Only answers to questions still open go through; nothing was played.",
			r.Version, stale.Current), "")
	case errors.As(err, &batch):
		reason := batch.Err.Error()
		var ill *engine.IllegalActionError
		if errors.As(batch.Err, &ill) {
			reason = ill.Reason
		}
		what := ""
		if batch.Index < len(texts) {
			what = " (" + texts[batch.Index] + ")"
		}
		return a.refuseMoves(ctx, fmt.Sprintf("Move %d of your reply%s is not allowed: %s", batch.Index+1, what, reason), "")
	}
	if text, ok := RefusalAnswer(err, r.GameID, "nothing was played"); ok {
		return a.refuse(ctx, text, "")
	}
	return Result{}, err
}

// HelpText is the command language in short, as an answer to "help".
const HelpText = `How to answer by email: write above the quoted email, one command a line (or between commas).
  3              the move of line 3 of the email; 1-3 is lines 1, 2 and 3
  place glitchy  a move by its words: play super app, claim spam filter, end, pass
                 (a whole turn: each command is read after the moves before it)
  discard 2 5    the options 2 and 5 of a question; none: no option
  always pass    pass every interrupt window from now on
  hiring freeze when place   play that Hack whenever a Monster is placed
                 (events: draw, place, tool, hack, claim)
  board          the board as it is now; help: this text
  resign         leave the game; vote end: vote to end it as it stands
  join           take your seat in a game you are invited to (join running a startup: with that deck); decline: turn it down
  say good game  a message to the table, the rest of the line as written
                 (say to bob ...: to bob only, in a game of 3 or 4)
A reply to a message's own email is a message back, as written.`

// refuseCommands answers a reply whose commands are not played: which
// command, at which step, why, and the moves of that step.
func (a *answer) refuseCommands(ctx context.Context, ce *play.CommandError) (Result, error) {
	reason := ce.Reason
	if ce.Step > 0 {
		reason = fmt.Sprintf("At step %d of your reply: %s", ce.Step, ce.Reason)
	}
	a.data.Moves = ce.Moves
	return a.refuseMoves(ctx, reason, ce.Command)
}

// info answers a reply that asks only for help or the board, or that
// holds only messages (posted first).
func (a *answer) info(ctx context.Context) (Result, error) {
	if err := a.say(ctx); err != nil {
		return Result{}, err
	}
	if len(a.data.Said) == 0 && a.data.SayRefused != "" {
		reason := a.data.SayRefused
		a.data.SayRefused, a.says = "", nil
		return a.refuse(ctx, reason, "")
	}
	version, err := a.current(ctx)
	if err != nil {
		return Result{}, err
	}
	outcome := Answered
	if len(a.data.Said) > 0 {
		outcome = Said
	}
	if err := a.write(ctx, outcome); err != nil {
		return Result{}, err
	}
	return Result{Outcome: outcome, GameID: a.reply.GameID, Version: version, Answered: true}, nil
}

// talkBack answers a reply to a message's own email (notifier.Reply.Talk):
// its text above the quoted email, as written, is one message, to the
// table, or to the author of the private message it answers alone.
// Nothing in it is read as a move.
func (a *answer) talkBack(ctx context.Context) (Result, error) {
	text := strings.TrimSpace(Cut(a.mail.Text))
	if text == "" {
		return a.refuse(ctx, "Your reply holds no text above the quoted email, so no message was posted. Write your message above it.", "")
	}
	a.says = []string{text}
	return a.info(ctx)
}

// say posts the reply's messages, in order, through the play path: what
// was posted goes in the answer (ReplyAnswer.Said), and the first one
// refused stops the rest, the answer saying why (SayRefused). Each is
// posted once, however often the reply is delivered (its idempotency
// key). An error is a failure to post them (the store).
func (a *answer) say(ctx context.Context) error {
	p, r := a.s.cfg.Play, a.reply
	for i, line := range a.says {
		key := "email:" + hex.EncodeToString(a.hash[:16]) + ".say" + strconv.Itoa(i)
		rec := &play.Record{Key: models.Key{UserID: r.UserID, Key: key}, Make: func(res *play.Result) (*models.Idempotency, error) {
			body, _ := json.Marshal(saidWords(res.Message))
			return &models.Idempotency{UserID: r.UserID, Key: key, RequestHash: a.hash, Status: 200, Response: body}, nil
		}}
		var res *play.Result
		var err error
		if r.Talk { // as written, to whom the answered message came from
			say := play.Say{Text: line}
			if r.To >= 0 {
				say.ToSeat = &r.To
			}
			res, err = p.Say(ctx, r.GameID, r.UserID, say, rec)
		} else {
			res, err = p.SayLine(ctx, r.GameID, r.UserID, line, rec)
		}
		var perr *play.Error
		var many *play.TooManyMessagesError
		switch {
		case err == nil:
			a.data.Said = append(a.data.Said, saidWords(res.Message))
			continue
		case errors.Is(err, models.ErrConflict), errors.Is(err, models.ErrKeyStored):
			// Posted by an earlier delivery of this reply.
			if rec, err := p.Store().IdempotencyRecord(ctx, r.UserID, key); err == nil {
				var words string
				if json.Unmarshal(rec.Response, &words) == nil {
					a.data.Said = append(a.data.Said, words)
				}
			}
			continue
		case errors.As(err, &perr):
			a.data.SayRefused = perr.Detail
		case errors.As(err, &many):
			a.data.SayRefused = many.Error()
		case errors.Is(err, play.ErrNotPlayer), errors.Is(err, models.ErrNotFound):
			a.data.SayRefused = "you have no seat in this game"
		default:
			return err
		}
		a.data.SayRefused = fmt.Sprintf("Your message %q was not posted: %s.", clipText(line), strings.TrimSuffix(a.data.SayRefused, "."))
		return nil
	}
	return nil
}

// saidWords says where a message went and what it said.
func saidWords(m *play.Said) string {
	if m.ToSeat != nil {
		return fmt.Sprintf("Posted to %s only: %q", m.To, m.Text)
	}
	return fmt.Sprintf("Posted to the table: %q", m.Text)
}

// clipText cuts s to 60 characters for an answer that quotes it.
func clipText(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// control carries out a command that stands alone: resign, vote end, or,
// on an invitation, join or decline.
func (a *answer) control(ctx context.Context, rd *play.Reading) (Result, error) {
	p, r := a.s.cfg.Play, a.reply
	key := "email:" + hex.EncodeToString(a.hash[:16])
	// The answer shows what the change leaves, the game's end among it:
	// the change sends the seat no email of its own (Answered).
	rec := &play.Record{Key: models.Key{UserID: r.UserID, Key: key}, Answered: true, Make: func(*play.Result) (*models.Idempotency, error) {
		return &models.Idempotency{UserID: r.UserID, Key: key, RequestHash: a.hash, Status: 200, Response: []byte("[]")}, nil
	}}
	var res *play.Result
	var err error
	var did string
	switch rd.Control {
	case play.ControlResign:
		did = "You resigned from the game."
		res, err = p.Resign(ctx, r.GameID, r.UserID, rec)
	case play.ControlVoteEnd:
		did = "You voted to end the game as it stands."
		res, err = p.VoteEnd(ctx, r.GameID, r.UserID, rec)
	case play.ControlDecline:
		did = "You declined the invitation."
		res, err = p.Decline(ctx, r.GameID, r.UserID, rec)
	case play.ControlJoin:
		deck, ok := prebuiltNamed(rd.Deck)
		if !ok {
			return a.refuse(ctx, fmt.Sprintf("No prebuilt deck is named %q; the decks are %s. Nothing was done.", strings.Join(rd.Deck, " "), deckNames()), "")
		}
		did = "You joined the game with the deck " + deck.Name + "."
		res, err = p.JoinInvited(ctx, r.GameID, r.UserID, play.DeckChoice{Prebuilt: deck.ID}, rec)
	}
	switch {
	case err == nil:
		defer res.Done()
		// The answer is for the user's seat now: the address's seat is the
		// one it was written for, which another player may hold since (a
		// seat declined, then taken by someone else).
		a.reply.Seat = res.Seat
		return a.applied(ctx, res, []string{did})
	case errors.Is(err, models.ErrConflict), errors.Is(err, models.ErrKeyStored):
		return a.appliedBefore(ctx, []string{did})
	}
	if text, ok := RefusalAnswer(err, r.GameID, "nothing was done"); ok {
		return a.refuse(ctx, text, "")
	}
	return Result{}, err
}

// prebuiltNamed is the prebuilt deck the words name (its name or id, the
// last word maybe cut short); no words: the first one.
func prebuiltNamed(w []string) (engine.Deck, bool) {
	decks := engine.Standard().Decks()
	if len(decks) == 0 {
		return engine.Deck{}, false
	}
	if len(w) == 0 {
		return decks[0], true
	}
	var found []engine.Deck
	for _, d := range decks {
		if play.NameStarts(d.Name, w) || play.NameStarts(strings.ReplaceAll(d.ID, "-", " "), w) {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		return engine.Deck{}, false
	}
	return found[0], true
}

func deckNames() string {
	var names []string
	for _, d := range engine.Standard().Decks() {
		names = append(names, strconv.Quote(strings.ToLower(d.Name)))
	}
	return strings.Join(names, ", ")
}

// applied answers a reply whose moves were played: what was applied, what
// came of it (not the moves again, worded as the log words them), and
// what comes next.
func (a *answer) applied(ctx context.Context, res *play.Result, texts []string) (Result, error) {
	a.data.Applied = texts
	var open []engine.Prompt // the seat's questions still open: the answer shows them once, under "Waiting for your answer"
	if res.State != nil {
		open = engine.PromptsFor(res.State, a.reply.Seat)
	}
	var evs, views []engine.Event
	for _, e := range res.Events() {
		if v, ok := e.For(a.reply.Seat); ok && !v.Echoes(a.reply.Seat) {
			views = append(views, v)
		}
		if e.Kind == "game_over" {
			a.reason = notifier.EndReason(e.Event)
		}
		evs = append(evs, e.Event)
	}
	a.data.Since = append(a.data.Since, engine.Unasked(views, open)...)
	if res.State != nil {
		// What the change did that the moves' author did not write (an
		// interrupt that cancelled a card of theirs, a claim that failed),
		// first in the answer, as their board's banner says it.
		a.data.News, a.data.Told = notifier.NewsTold(res.State.Table(), a.reply.Seat, evs)
	}
	if err := a.say(ctx); err != nil {
		return Result{}, err
	}
	a.now(res.Game, res.State)
	if slices.ContainsFunc(res.Events(), func(e play.Event) bool { return e.Kind == "turn_started" && e.Seat != a.reply.Seat }) {
		// The reply ended the seat's turn: the others' comes.
		a.data.Offer = notifier.StandingOffer(res.State.View(a.reply.Seat))
	}
	if err := a.write(ctx, Applied); err != nil {
		return Result{}, err
	}
	a.log.Info("inbound: reply played", "actions", len(texts))
	return Result{Outcome: Applied, GameID: a.reply.GameID, Version: res.Game.Version, Answered: true}, nil
}

// appliedBefore answers a reply played by an earlier delivery.
func (a *answer) appliedBefore(ctx context.Context, texts []string) (Result, error) {
	a.data.Applied = texts
	if rec, err := a.s.cfg.Play.Store().IdempotencyRecord(ctx, a.reply.UserID, "email:"+hex.EncodeToString(a.hash[:16])); err == nil {
		var stored []string
		if json.Unmarshal(rec.Response, &stored) == nil {
			a.data.Applied = stored
		}
	}
	if err := a.say(ctx); err != nil {
		return Result{}, err
	}
	version, err := a.current(ctx)
	if err != nil {
		return Result{}, err
	}
	if err := a.write(ctx, Applied); err != nil {
		return Result{}, err
	}
	return Result{Outcome: Applied, GameID: a.reply.GameID, Version: version, Answered: true}, nil
}

// refuse answers a reply of which nothing was played: why, and the game
// as it is now with the recipient's fresh lines and reply address. line
// is the reply's line at fault ("" for none).
func (a *answer) refuse(ctx context.Context, reason, line string) (Result, error) {
	return a.refuseAs(ctx, reason, reason, line)
}

// refuseMoves is refuse for a reply whose moves were refused, for why:
// the reason logged and returned says "Nothing was played." after it;
// the answer's headline says so (notifier.Headline) unless a message of
// the reply was posted.
func (a *answer) refuseMoves(ctx context.Context, why, line string) (Result, error) {
	shown := strings.TrimSuffix(why, ".") + "."
	reason := shown + " Nothing was played."
	if len(a.data.Said) > 0 {
		shown = reason
	}
	return a.refuseAs(ctx, shown, reason, line)
}

// refuseAs is refuse with the words the answer shows apart from the
// reason logged and returned.
func (a *answer) refuseAs(ctx context.Context, shown, reason, line string) (Result, error) {
	if len(a.says) > 0 && len(a.data.Said) == 0 {
		reason += " Your message was not posted either."
		shown += " Your message was not posted either."
	}
	a.data.Refused, a.data.Line = shown, line
	version, err := a.current(ctx)
	if err != nil {
		return Result{}, err
	}
	ok, until, err := a.s.mayRefuse(ctx, a.reply, a.user.Email)
	if err != nil {
		return Result{}, err
	}
	if !ok {
		// Most likely an auto-responder without auto-reply headers, which
		// would answer the answer: silence ends the exchange.
		a.log.Warn("inbound: reply refused and not answered: too many refusals for this decision or sender", "reason", reason)
		if _, err := a.s.cfg.Play.Store().RecordInbound(ctx, models.InboundMessage{IDHash: a.hash, UserID: a.user.ID,
			GameID: a.reply.GameID, Outcome: string(Refused), ReceivedAt: a.s.now()}); err != nil {
			return Result{}, err
		}
		return Result{Outcome: Refused, Reason: reason, GameID: a.reply.GameID, Version: version}, nil
	}
	a.data.QuietUntil = until
	if err := a.write(ctx, Refused); err != nil {
		return Result{}, err
	}
	a.log.Info("inbound: reply refused", "reason", reason)
	return Result{Outcome: Refused, Reason: reason, GameID: a.reply.GameID, Version: version, Answered: true}, nil
}

// current fills the answer with the game as it is now, for the reply's
// seat if it is still the user's.
func (a *answer) current(ctx context.Context) (int64, error) {
	var version int64
	err := a.s.cfg.Play.Read(ctx, a.reply.GameID, a.reply.UserID, func(g *models.Game, seat int, st *engine.State) error {
		version = g.Version
		if seat == a.reply.Seat {
			a.now(g, st)
		}
		return nil
	})
	if errors.Is(err, models.ErrNotFound) {
		return 0, nil
	}
	return version, err
}

// now fills in what happens next for the reply's seat, with its hand,
// prompts and fresh board when it has something to do.
func (a *answer) now(g *models.Game, st *engine.State) {
	seat := a.reply.Seat
	if st == nil {
		a.data.Next = "The game is " + g.Status + "."
		if g.Status == models.StatusOpen {
			a.data.Next = "The game has not started yet."
		}
		a.data.Board, a.data.Hand, a.data.Prompts, a.data.Deadline = nil, nil, nil, time.Time{}
		return
	}
	v := st.View(seat)
	name := func(i int) string {
		if i >= 0 && i < len(g.Seats) {
			return g.Seats[i].Username
		}
		return ""
	}
	var deadline time.Time
	if g.DeadlineAt != nil {
		deadline = *g.DeadlineAt
	}
	a.data.Quiet = notifier.QuietMoveOf(g, seat)
	awaiting := engine.Awaiting(st)
	switch {
	case st.Over():
		a.data.Next = "The game is over."
		// The end of the game as its email says it: the answer stands for
		// that email, which the change did not send the seat.
		over := notifier.Final(st, seat, g.Version, a.reason, notifier.ReplayCommand(a.s.cfg.Email.BaseURL, g.ID))
		a.data.Over = &over
	case len(engine.PromptsFor(st, seat)) > 0:
		a.data.Next = "A decision waits for you."
	case st.Active == seat && slices.Contains(awaiting, seat):
		a.data.Next = "It is still your turn."
	case len(awaiting) > 0:
		var who []string
		for _, i := range awaiting {
			who = append(who, name(i))
		}
		a.data.Next = "The game waits for " + strings.Join(who, ", ") + "."
		if !slices.Contains(awaiting, st.Active) {
			a.data.Next += " It is " + name(st.Active) + "'s turn."
		}
	default:
		a.data.Next = "It is " + name(st.Active) + "'s turn."
	}
	if !a.board && (st.Over() || !slices.Contains(awaiting, seat)) {
		a.data.Board, a.data.Hand, a.data.Prompts, a.data.Deadline = nil, nil, nil, time.Time{}
		return
	}
	a.data.Hand = notifier.Hand(v)
	if ps := engine.PromptsFor(st, seat); len(ps) > 0 {
		a.data.Prompts = notifier.Prompts(st, ps, deadline)
	}
	a.data.Deadline = deadline
	a.data.Board = notifier.SeatBoard(st, v, seat, g.Version)
}

// write records the message as handled and writes its answer's email job,
// in one transaction: a message is answered once, whichever delivery of
// it gets here first.
func (a *answer) write(ctx context.Context, outcome Outcome) error {
	s, u := a.s, a.user
	gid := strconv.FormatInt(a.reply.GameID, 10)
	base := strings.TrimRight(s.cfg.Email.BaseURL, "/")
	d := a.data
	d.Recipient = u.DisplayName
	if d.Recipient == "" {
		d.Recipient = u.Username
	}
	d.GameID, d.GameTitle, d.GameURL = gid, "Game #"+gid, notifier.GameURL(base, a.reply.GameID)
	d.SettingsURL = notifier.PreferencesURL(base)
	if id := a.mail.MessageID; len(id) <= 250 {
		d.InReplyTo = id
	}
	body, err := json.Marshal(d)
	if err != nil {
		return err
	}
	args := notifier.EmailArgs{Key: "g" + gid + ".reply." + hex.EncodeToString(a.hash[:12]), UserID: u.ID, GameID: a.reply.GameID,
		Name: d.Recipient, Email: u.Email, NoteKind: notifier.KindReplyAnswer, Data: body}
	return s.cfg.Play.Store().Begin(ctx, func(tx models.OutboxTx) error {
		fresh, err := tx.Store.RecordInbound(ctx, models.InboundMessage{IDHash: a.hash, UserID: u.ID, GameID: a.reply.GameID,
			Outcome: string(outcome), ReceivedAt: s.now()})
		if err != nil || !fresh {
			return err // another delivery of it was answered meanwhile
		}
		return s.cfg.Outbox.EnqueueEmail(ctx, tx.Tx, args)
	})
}

// ReceiveRaw handles a raw RFC 5322 message that a mail provider posted
// over HTTP (its recipients are read from its To and Cc headers): the
// outcome and its reason, or, for a sender who sent too many replies,
// how long to wait (retry > 0, with err nil). err is a failure to
// handle it; the provider should post it again.
func (s *Service) ReceiveRaw(ctx context.Context, raw []byte) (outcome, reason string, retry time.Duration, err error) {
	res, err := s.Receive(ctx, Envelope{Raw: raw})
	var limited *refusal.RateLimitError
	if errors.As(err, &limited) {
		text, _ := RefusalAnswer(err, 0, "")
		return "", text, limited.Retry, nil
	}
	if err != nil {
		return "", "", 0, err
	}
	return string(res.Outcome), res.Reason, 0, nil
}
