package api_test

import (
	"context"
	"log/slog"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/internal/redact"
	"github.com/datamonsters/turns/internal/servetest"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// TestLogsCarryNoSecrets plays a whole 3-player game through the API with
// the notification pipeline, logging at debug level through the service's
// logger (redact.NewLogger), while the SMTP server turns each player's
// first email away with an error naming the address (which River logs as
// the job's error). The logs must hold none of the players' email
// addresses (nor any other address the emails carried), none of their
// access, refresh, API or unsubscribe tokens or webhook secrets, and none
// of the names of the cards that started in the decks (hidden zones).
func TestLogsCarryNoSecrets(t *testing.T) {
	t.Parallel()
	var logs servetest.Buffer
	clk := &clock{t: time.Now().UTC(), flowing: time.Now()}
	st := modelstest.Open(t, e2eDialect(), models.Options{Now: clk.Now})
	e := startNotifyEnv(t, st, clk, notifyOptions{allowPrivate: true, log: redact.NewLogger(&logs, slog.LevelDebug)})
	names := []string{"ana", "bob", "cyd"}
	e.mail.mu.Lock()
	e.mail.busy = map[string]int{}
	for _, n := range names {
		e.mail.busy[n+"@example.com"] = 1
	}
	e.mail.mu.Unlock()

	var players []*player
	secrets := map[string]string{} // what must not be logged -> what it is
	for _, n := range names {
		p := e.register(n)
		players = append(players, p)
		secrets[n+"@example.com"] = n + "'s email address"
		secrets[p.Access] = n + "'s access token"
		secrets[p.Refresh] = n + "'s refresh token"
	}
	var tok struct {
		Token string `json:"token"`
	}
	e.must(201, req{Method: "POST", Path: "/v1/tokens", Token: players[0].Access,
		Body: map[string]any{"name": "bot", "scopes": []string{"read", "play"}}}).decode(t, &tok)
	secrets[tok.Token] = "ana's API token"
	rcv := startReceiver(t)
	var hook struct {
		Secret string `json:"secret"`
	}
	e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: tok.Token,
		Body: map[string]any{"url": rcv.srv.URL + "/dm", "events": []string{"your_turn", "game_over"}}}).decode(t, &hook)
	secrets[hook.Secret] = "ana's webhook secret"

	g := e.startGame(map[string]any{"mode": "fast", "invite": []string{"bob", "cyd"}}, players...)
	stored, err := e.store.Game(context.Background(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	state, err := engine.Unmarshal(stored.State)
	if err != nil {
		t.Fatal(err)
	}
	cat := engine.Standard()
	hidden := append([]engine.Inst(nil), state.ChallengeDeck...)
	for _, p := range state.Players {
		hidden = append(append(hidden, p.Deck...), p.Hand...)
	}
	for _, in := range hidden {
		if c := cat.Card(in.Card); c != nil {
			secrets[c.Name] = "the name of a card in a hidden zone (" + in.Card + ")"
		}
	}
	out := play(t, e.env, g.ID, players, 7, 3000)
	if out.game.Status != "over" {
		t.Fatalf("status %s", out.game.Status)
	}
	e.drain(t)

	mails := e.mail.all()
	for _, m := range mails {
		for _, h := range []string{"To", "Cc", "Reply-To"} {
			if as, err := mail.ParseAddressList(m.Header.Get(h)); err == nil {
				for _, a := range as {
					secrets[a.Address] = "an address in an email's " + h
				}
			}
		}
		link, err := url.Parse(strings.Trim(m.Header.Get("List-Unsubscribe"), "<>"))
		if err != nil || link.Query().Get("token") == "" {
			t.Fatalf("List-Unsubscribe %q", m.Header.Get("List-Unsubscribe"))
		}
		secrets[link.Query().Get("token")] = "an unsubscribe token"
	}
	// Each player's first email was turned away with an error naming
	// them: whichever of those River has logged shows the address
	// shortened. (Which player's email comes first, and so whose error
	// is logged, depends on the machine's load.)
	shortened := func(text string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return strings.Contains(text, n[:1]+"***@example.com") })
	}
	for deadline := time.Now().Add(10 * time.Second); !shortened(logs.String()) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	text := logs.String()
	lines := strings.Count(text, "\n")
	for s, what := range secrets {
		if i := strings.Index(text, s); i >= 0 {
			start := strings.LastIndexByte(text[:i], '\n') + 1
			end := i + strings.IndexByte(text[i:], '\n')
			t.Errorf("%s (%q) is in the log:\n%s", what, s, text[start:end])
		}
	}
	// The logs were written, with the emails' failures in them.
	if lines < out.actions || !strings.Contains(text, `"msg":"request"`) || !shortened(text) {
		var errored []string
		for _, l := range strings.Split(text, "\n") {
			if strings.Contains(l, "errored") || strings.Contains(l, "mail") {
				errored = append(errored, l)
			}
		}
		t.Fatalf("%d log lines for %d actions; want every request and the SMTP errors, shortened. The lines of jobs and mail:\n%s",
			lines, out.actions, strings.Join(errored, "\n"))
	}
	t.Logf("%d log lines, %d emails, %d actions; none of %d secrets logged", lines, len(mails), out.actions, len(secrets))
}
