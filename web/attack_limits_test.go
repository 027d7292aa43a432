package web_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/play"
)

// TestAttackLimitsOnPages: a script signed in to the pages makes API
// tokens and open games without end. What must hold: the one past each
// limit gets a 409 page that says which limit and how to make room, on
// the page of the form, and nothing more is stored; the form sent again
// with the key of one that was made gets its first answer.
func TestAttackLimitsOnPages(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		c := s.client()
		c.register("ana", "ana password")
		key := hiddenValue(t, c.get("/settings").mustSee(t, 200).Body, "key")
		token := func(i int) url.Values {
			return url.Values{"key": {fmt.Sprintf("%s-%d", key, i)}, "name": {fmt.Sprintf("bot %d", i)}, "scope": {"read"}}
		}
		for i := range accounts.MaxAPITokens {
			c.post("/settings/tokens", token(i)).mustSee(t, 201)
		}
		c.post("/settings/tokens", token(accounts.MaxAPITokens)).mustSee(t, 409,
			fmt.Sprintf("You have %d live API tokens", accounts.MaxAPITokens), "revoke one first", "Create the token")
		c.post("/settings/tokens", token(3)).mustSee(t, 201, "bot 3")
		if n := modelstest.Count(s.t, s.store, `SELECT COUNT(*) FROM api_tokens WHERE revoked_at IS NULL`); n != accounts.MaxAPITokens {
			t.Fatalf("%d live tokens stored; the limit is %d", n, accounts.MaxAPITokens)
		}

		open := func() resp {
			f := mustForm(t, c.get("/new-game").Body, "Open the game")
			return c.send(f, "players", "2", "mode", "fast", "public", "")
		}
		for range play.MaxOpenGames {
			open().mustRedirect(t, "/games/")
		}
		open().mustSee(t, 409, fmt.Sprintf("You have %d open games", play.MaxOpenGames), "start or cancel one first", "Open the game")
		if n := modelstest.Count(s.t, s.store, `SELECT COUNT(*) FROM games WHERE status = 'open'`); n != play.MaxOpenGames {
			t.Fatalf("%d open games stored; the limit is %d", n, play.MaxOpenGames)
		}
	})
}
