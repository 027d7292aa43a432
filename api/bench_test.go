package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
)

// benchDialect is Postgres when TEST_DATABASE_URL is set.
func benchDialect() models.Dialect { return modelstest.Dialects()[len(modelstest.Dialects())-1] }

// rawCall is a request without the contract checks, for benchmarks.
func rawCall(b *testing.B, e *env, method, path, token string, body, out any) {
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, e.srv.URL+path, rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := e.http.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		b.Fatalf("%s %s: %d %s", method, path, res.StatusCode, data)
	}
	if out != nil {
		json.Unmarshal(data, out)
	}
}

// BenchmarkSubmit measures one accepted submission over HTTP (end_turn, or
// the default answer when a prompt waits), one client, one game.
func BenchmarkSubmit(b *testing.B) {
	e := newEnv(b, benchDialect(), testConfig())
	players := []*player{e.register("ana"), e.register("bob")}
	g := e.startGame(map[string]any{"mode": "fast"}, players...)
	version, await := g.Version, awaited(g, players)[0]
	var legal struct {
		Actions []engine.Action `json:"actions"`
	}
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		rawCall(b, e, "GET", fmt.Sprintf("/v1/games/%d/legal", g.ID), await.Access, nil, &legal)
		a := legal.Actions[0]
		for _, l := range legal.Actions {
			if l.Type == engine.ActEndTurn {
				a = l
			}
		}
		if a.Type == engine.ActAnswer {
			var mine game
			rawCall(b, e, "GET", fmt.Sprintf("/v1/games/%d", g.ID), await.Access, nil, &mine)
			a = answered(a, mine.Prompts)
		}
		b.StartTimer()
		var tr turnResult
		rawCall(b, e, "POST", actionsPath(g.ID), await.Access, map[string]any{"expected_version": version, "actions": []engine.Action{a}}, &tr)
		version = tr.Version
		await = players[tr.View.Awaiting[0]]
	}
}

// BenchmarkGetGame measures GET of a started game by a player.
func BenchmarkGetGame(b *testing.B) {
	e := newEnv(b, benchDialect(), testConfig())
	players := []*player{e.register("ana"), e.register("bob")}
	g := e.startGame(map[string]any{"mode": "fast"}, players...)
	path := fmt.Sprintf("/v1/games/%d", g.ID)
	for b.Loop() {
		rawCall(b, e, "GET", path, players[0].Access, nil, nil)
	}
}
