package api_test

import (
	"fmt"
	"testing"
)

// TestRedeliverUnstorableID: a delivery id in the path that no database
// stores (a NUL, bytes that are not UTF-8, a lone surrogate) names no
// delivery: 404 on both databases (Postgres refused the query).
func TestRedeliverUnstorableID(t *testing.T) {
	eachNotifyDB(t, true, func(t *testing.T, e *notifyEnv) {
		ana := e.register("ana")
		var hook struct {
			ID int64 `json:"id"`
		}
		e.must(201, req{Method: "POST", Path: "/v1/webhooks", Token: ana.Access, Body: map[string]any{"url": "https://example.com/hook"}}).decode(t, &hook)
		for _, bad := range []string{"a%00b", "%FF%FE", "%ED%A0%80"} {
			r := e.do(req{Method: "POST", Path: fmt.Sprintf("/v1/webhooks/%d/deliveries/%s/redeliver", hook.ID, bad), Token: ana.Access, NoContract: true})
			if r.Status != 404 {
				t.Errorf("redeliver %s: %d %s", bad, r.Status, r.Body)
			}
		}
	})
}
