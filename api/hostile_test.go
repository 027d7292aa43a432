package api_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/datamonsters/turns"
	"github.com/getkin/kin-openapi/openapi3"
)

// hostileJSON are bodies a broken client or an attacker sends: no JSON,
// JSON of every wrong shape, numbers past any range, deep nesting, and
// fields of the wrong type.
var hostileJSON = []string{"", "null", "[]", `"x"`, "1e999", "-0", "{", `{"a":`, "\xff", strings.Repeat("[", 10000),
	`{"expected_version": 9223372036854775808, "actions": [{"type": "end_turn"}]}`,
	`{"expected_version": -1, "actions": []}`, `{"actions": null}`, `{"actions": [null]}`, `{"actions": [{"type": 1}]}`,
	`{"players": "two", "deck": []}`, `{"players": 1e6, "deck": {"prebuilt": {}}}`, `{"cards": [{"card": "glitchy-junior", "count": 1e300}]}`,
	`{"username": [], "password": {}, "email": 7}`, `{"url": 1, "events": "all"}`, `{"starts_at": "yesterday", "ends_at": 0}`,
	`{"preferences": [{"kind": null, "channel": [], "enabled": "yes"}]}`, `{"scopes": [1, 2]}`, `{"name": null, "cards": {}}`,
	`{"__proto__": {}, "constructor": 1}`}

// hostileQuery are what such a client puts in a query's fields.
var hostileQuery = []string{"", "-1", "0", "9223372036854775808", "1e999", "abc", "true&false", "\x00", "\xff", "%",
	strings.Repeat("9", 400)}

// TestHostileRequests sends every operation of openapi.yaml, with each id
// in its path from a real one to nonsense, hostile bodies and hostile
// queries, signed in and (all of them for the operations that need no
// token) not. No answer is a 5xx; every answer keeps to
// the contract (the harness checks each); and the service still answers
// after it all.
func TestHostileRequests(t *testing.T) {
	eachNotifyDB(t, true, func(t *testing.T, e *notifyEnv) {
		ana, bob := e.register("ana"), e.register("bob")
		g := e.startGame(map[string]any{"mode": "fast", "invite": []string{"bob"}}, ana, bob)
		doc, err := openapi3.NewLoader().LoadFromData(turns.OpenAPI)
		if err != nil {
			t.Fatal(err)
		}
		skip := []string{"/v1/notifications/stream", "/v1/games/{id}/stream"} // they stay open: the stream tests attack them
		ids := []string{fmt.Sprint(g.ID), "0", "99999999999999999999", "abc"}
		queryFields := []string{"limit", "after", "cursor", "status", "awaiting", "open", "token"}
		sent, relogins := 0, 0
		// Inbound email is not configured here: its 503 says so.
		disabled := func(r *resp) bool { return r.Status == 503 && strings.Contains(string(r.Body), `"inbound_disabled"`) }
		for _, path := range doc.Paths.InMatchingOrder() {
			if slices.Contains(skip, path) {
				continue
			}
			for method, op := range doc.Paths.Value(path).Operations() {
				// An operation that needs a token is refused without one
				// before it reads anything: one body and one query show it.
				secured := op.Security != nil && len(*op.Security) > 0
				// A logout or a password change among the bodies may end
				// ana's token: she signs in again, so that every operation
				// is tried signed in.
				if e.do(req{Method: "GET", Path: "/v1/me", Token: ana.Access}).Status == 401 {
					var tok struct {
						AccessToken string `json:"access_token"`
					}
					e.must(200, req{Method: "POST", Path: "/v1/auth/login", Body: map[string]string{"username": "ana", "password": "password-ana"}}).decode(t, &tok)
					ana.Access = tok.AccessToken
					relogins++
				}
				for _, id := range ids {
					p := strings.NewReplacer("{id}", id, "{delivery}", "x").Replace(path)
					for _, tok := range []string{ana.Access, ""} {
						// Bodies go to the operations that read one; the
						// queries, to those that read none.
						bodies, queries := hostileJSON, hostileQuery[:2]
						if op.RequestBody == nil {
							bodies, queries = bodies[:1], hostileQuery
						}
						if tok == "" && secured {
							bodies, queries = bodies[:1], queries[:1]
						}
						for _, body := range bodies {
							r := e.do(req{Method: method, Path: p, Token: tok, Body: body, NoContract: true})
							if r.Status >= 500 && !disabled(r) {
								t.Errorf("%s %s with %.40q: %d %s", method, p, body, r.Status, trim(r.Body))
							}
							sent++
						}
						for _, v := range queries {
							q := url.Values{}
							for _, f := range queryFields {
								q.Set(f, v)
							}
							r := e.do(req{Method: method, Path: p + "?" + q.Encode(), Token: tok, NoContract: true})
							if r.Status >= 500 && !disabled(r) {
								t.Errorf("%s %s?%.60s: %d %s", method, p, q.Encode(), r.Status, trim(r.Body))
							}
							sent++
						}
					}
				}
			}
		}
		e.must(200, req{Method: "GET", Path: "/v1/me", Token: bob.Access})
		t.Logf("%d hostile requests; ana signed in again %d times", sent, relogins)
	})
}
