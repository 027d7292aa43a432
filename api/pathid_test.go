package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/datamonsters/turns"
	"github.com/datamonsters/turns/api"
	"github.com/getkin/kin-openapi/openapi3"
)

// TestPathIDsAreChecked sends every operation of openapi.yaml whose path
// names a resource by {id} an id that is not a positive integer, signed
// in, on a server with notifications on and with every header an
// operation may want: each answers 400 with a detail that names the id,
// and changes nothing (the caller's account is as before).
func TestPathIDsAreChecked(t *testing.T) {
	eachNotifyDB(t, false, func(t *testing.T, e *notifyEnv) {
		ana := e.register("ana")
		before := e.must(200, req{Method: "GET", Path: "/v1/me", Token: ana.Access}).Body
		doc, err := openapi3.NewLoader().LoadFromData(turns.OpenAPI)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, path := range doc.Paths.InMatchingOrder() {
			if !strings.Contains(path, "{id}") {
				continue
			}
			for method, op := range doc.Paths.Value(path).Operations() {
				for _, id := range []string{"abc", "0", "-3", "1.5", "99999999999999999999", "%20"} {
					p := strings.NewReplacer("{id}", id, "{delivery}", "1").Replace(path)
					r := req{Method: method, Path: p, Token: ana.Access, NoContract: true,
						Header: map[string]string{"Idempotency-Key": "path-id-" + id + method + path, "If-Match": `"v1"`}}
					if op.RequestBody != nil {
						r.Body = "{}"
					}
					got := e.do(r)
					var pr api.Problem
					if got.Status != http.StatusBadRequest {
						t.Errorf("%s %s: %d %s, want 400", method, p, got.Status, trim(got.Body))
						continue
					}
					got.decode(t, &pr)
					if !strings.Contains(pr.Detail, "id ") {
						t.Errorf("%s %s: detail %q does not name the id", method, p, pr.Detail)
					}
					checked++
				}
			}
		}
		if checked < 20 {
			t.Fatalf("only %d requests checked: the contract's {id} paths were not found", checked)
		}
		if after := e.must(200, req{Method: "GET", Path: "/v1/me", Token: ana.Access}).Body; string(after) != string(before) {
			t.Fatalf("the account changed:\n%s\n%s", before, after)
		}
	})
}
