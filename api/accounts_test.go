package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestRegisterLoginRefreshLogout(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		ana := e.register("ana")
		if r := e.do(req{Method: "POST", Path: "/v1/auth/register", Body: map[string]string{"username": "ana", "password": "another-pass"}}); r.Status != 409 || r.code(t) != "username_taken" {
			t.Fatalf("duplicate: %d %s", r.Status, r.Body)
		}
		// Wrong password, unknown user: the same answer.
		for _, body := range []map[string]string{{"username": "ana", "password": "wrong-password"}, {"username": "nobody", "password": "x"}} {
			if r := e.do(req{Method: "POST", Path: "/v1/auth/login", Body: body}); r.Status != 401 || r.code(t) != "bad_credentials" {
				t.Fatalf("bad login: %d %s", r.Status, r.Body)
			}
		}
		r := e.must(200, req{Method: "POST", Path: "/v1/auth/login", Body: map[string]string{"username": "ana", "password": "password-ana"}})
		var tok struct {
			Access  string `json:"access_token"`
			Refresh string `json:"refresh_token"`
		}
		r.decode(t, &tok)
		me := e.must(200, req{Method: "GET", Path: "/v1/me", Token: tok.Access})
		if !strings.Contains(string(me.Body), `"username":"ana"`) {
			t.Fatalf("me: %s", me.Body)
		}

		// Rotation: the new refresh token works, the old one is reuse and
		// revokes the family, including the new one.
		r = e.must(200, req{Method: "POST", Path: "/v1/auth/refresh", Body: map[string]string{"refresh_token": ana.Refresh}})
		var next struct {
			Refresh string `json:"refresh_token"`
		}
		r.decode(t, &next)
		if next.Refresh == ana.Refresh {
			t.Fatal("refresh token not rotated")
		}
		if r := e.do(req{Method: "POST", Path: "/v1/auth/refresh", Body: map[string]string{"refresh_token": ana.Refresh}}); r.Status != 401 {
			t.Fatalf("reuse: %d", r.Status)
		}
		if r := e.do(req{Method: "POST", Path: "/v1/auth/refresh", Body: map[string]string{"refresh_token": next.Refresh}}); r.Status != 401 {
			t.Fatalf("family not revoked after reuse: %d", r.Status)
		}

		// Logout revokes the login's family.
		e.must(204, req{Method: "POST", Path: "/v1/auth/logout", Body: map[string]string{"refresh_token": tok.Refresh}})
		if r := e.do(req{Method: "POST", Path: "/v1/auth/refresh", Body: map[string]string{"refresh_token": tok.Refresh}}); r.Status != 401 || r.code(t) != "invalid_token" {
			t.Fatalf("after logout: %d %s", r.Status, r.Body)
		}
	})
}

func TestProfile(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		bob := e.register("bob")
		r := e.must(200, req{Method: "PATCH", Path: "/v1/me", Token: bob.Access,
			Body: map[string]any{"display_name": "Bob", "notifications": map[string]bool{"email": false, "turns": true}}})
		var u struct {
			DisplayName   string `json:"display_name"`
			Email         string `json:"email"`
			Notifications struct{ Email, Turns bool }
		}
		r.decode(t, &u)
		if u.DisplayName != "Bob" || u.Email != "bob@example.com" || u.Notifications.Email || !u.Notifications.Turns {
			t.Fatalf("%+v", u)
		}
		if r := e.do(req{Method: "PATCH", Path: "/v1/me", Token: bob.Access, Body: map[string]any{"email": "not an address"}}); r.Status != 422 {
			t.Fatalf("bad email: %d", r.Status)
		}
	})
}

func TestLoginRateLimit(t *testing.T) {
	e := newEnv(t, "sqlite", testConfig())
	e.register("cyd")
	for i := range 10 {
		if r := e.do(req{Method: "POST", Path: "/v1/auth/login", Body: map[string]string{"username": "cyd", "password": "wrong-password"}}); r.Status != 401 {
			t.Fatalf("attempt %d: %d", i, r.Status)
		}
	}
	r := e.do(req{Method: "POST", Path: "/v1/auth/login", Body: map[string]string{"username": "cyd", "password": "password-cyd"}})
	if r.Status != 429 || r.Header.Get("Retry-After") == "" || r.code(t) != "rate_limited" {
		t.Fatalf("11th attempt: %d %s", r.Status, r.Body)
	}
	// Another username from the same address is not limited.
	if r := e.do(req{Method: "POST", Path: "/v1/auth/login", Body: map[string]string{"username": "dee", "password": "x"}}); r.Status != 401 {
		t.Fatalf("other user: %d", r.Status)
	}
	e.clock.Add(time.Minute)
	e.must(200, req{Method: "POST", Path: "/v1/auth/login", Body: map[string]string{"username": "cyd", "password": "password-cyd"}})
}

func sign(t *testing.T, method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBadTokens(t *testing.T) {
	e := newEnv(t, "sqlite", testConfig())
	u := e.register("eve")
	now := time.Now()
	good := jwt.MapClaims{"sub": "1", "iss": "datamonsters", "aud": "datamonsters-api", "exp": now.Add(time.Hour).Unix()}
	with := func(k string, v any) jwt.MapClaims {
		c := jwt.MapClaims{}
		for kk, vv := range good {
			c[kk] = vv
		}
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	for name, tok := range map[string]string{
		"garbage":        "not-a-token",
		"alg none":       sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, good),
		"HS512":          sign(t, jwt.SigningMethodHS512, testSecret, good),
		"other key":      sign(t, jwt.SigningMethodHS256, []byte("another-secret-0123456789abcdef012345"), good),
		"expired":        sign(t, jwt.SigningMethodHS256, testSecret, with("exp", now.Add(-time.Minute).Unix())),
		"no exp":         sign(t, jwt.SigningMethodHS256, testSecret, with("exp", nil)),
		"wrong issuer":   sign(t, jwt.SigningMethodHS256, testSecret, with("iss", "someone")),
		"wrong audience": sign(t, jwt.SigningMethodHS256, testSecret, with("aud", "other-api")),
		"unknown api":    "dmp_unknown",
	} {
		r := e.do(req{Method: "GET", Path: "/v1/me", Token: tok})
		if r.Status != 401 || r.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	if r := e.do(req{Method: "GET", Path: "/v1/me"}); r.Status != 401 || r.code(t) != "unauthorized" {
		t.Errorf("no token: %d", r.Status)
	}
	e.must(200, req{Method: "GET", Path: "/v1/me", Token: sign(t, jwt.SigningMethodHS256, testSecret, with("sub", "1"))})
	_ = u
}

// TestVerifiedTokenExpires: an access token the server has verified, and so
// remembers, still stops working at its expiry, and a token that differs
// from it only in its signature is refused.
func TestVerifiedTokenExpires(t *testing.T) {
	cfg := testConfig()
	cfg.AccessTTL = time.Hour
	e := newEnv(t, "sqlite", cfg)
	gus := e.register("gus")
	e.must(200, req{Method: "GET", Path: "/v1/me", Token: gus.Access})
	e.must(200, req{Method: "GET", Path: "/v1/me", Token: gus.Access})
	sig := strings.LastIndexByte(gus.Access, '.') + 1
	other := map[bool]string{true: "B", false: "A"}[gus.Access[sig] == 'A'] // its first character changed
	forged := gus.Access[:sig] + other + gus.Access[sig+1:]
	if r := e.do(req{Method: "GET", Path: "/v1/me", Token: forged}); r.Status != 401 {
		t.Fatalf("a token with another signature: %d %s", r.Status, r.Body)
	}
	e.clock.Add(59 * time.Minute)
	e.must(200, req{Method: "GET", Path: "/v1/me", Token: gus.Access})
	e.clock.Add(time.Minute)
	if r := e.do(req{Method: "GET", Path: "/v1/me", Token: gus.Access}); r.Status != 401 || r.code(t) != "unauthorized" {
		t.Fatalf("at its expiry: %d %s", r.Status, r.Body)
	}
}

func TestAPITokenScopes(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		fay := e.register("fay")
		r := e.must(201, req{Method: "POST", Path: "/v1/tokens", Token: fay.Access, Body: map[string]any{"name": "reader", "scopes": []string{"read"}}})
		var tok struct {
			ID    int64  `json:"id"`
			Token string `json:"token"`
		}
		r.decode(t, &tok)
		if !strings.HasPrefix(tok.Token, "dmp_") {
			t.Fatalf("token %q", tok.Token)
		}
		e.must(200, req{Method: "GET", Path: "/v1/me", Token: tok.Token})
		if r := e.do(req{Method: "POST", Path: "/v1/games", Token: tok.Token, Body: map[string]any{"players": 2, "deck": map[string]string{"prebuilt": "running-a-startup"}}}); r.Status != 403 || r.code(t) != "insufficient_scope" {
			t.Fatalf("play with a read token: %d %s", r.Status, r.Body)
		}
		// API tokens cannot manage tokens.
		if r := e.do(req{Method: "GET", Path: "/v1/tokens", Token: tok.Token}); r.Status != 403 {
			t.Fatalf("list tokens with an API token: %d", r.Status)
		}
		list := e.must(200, req{Method: "GET", Path: "/v1/tokens", Token: fay.Access})
		if strings.Contains(string(list.Body), tok.Token) || !strings.Contains(string(list.Body), `"reader"`) {
			t.Fatalf("list: %s", list.Body)
		}
		if r := e.do(req{Method: "POST", Path: "/v1/tokens", Token: fay.Access, Body: map[string]any{"name": "x", "scopes": []string{"admin"}}, NoContract: true}); r.Status != 422 {
			t.Fatalf("bad scope: %d", r.Status)
		}
		e.must(204, req{Method: "DELETE", Path: "/v1/tokens/" + itoa(tok.ID), Token: fay.Access})
		if r := e.do(req{Method: "GET", Path: "/v1/me", Token: tok.Token}); r.Status != 401 {
			t.Fatalf("revoked token: %d", r.Status)
		}
		if r := e.do(req{Method: "DELETE", Path: "/v1/tokens/" + itoa(tok.ID), Token: fay.Access}); r.Status != 404 {
			t.Fatalf("revoke twice: %d", r.Status)
		}
	})
}

func TestBadInput(t *testing.T) {
	e := newEnv(t, "sqlite", testConfig())
	gil := e.register("gil")
	for name, c := range map[string]struct {
		r    req
		want int
		code string
	}{
		"unknown field": {req{Method: "POST", Path: "/v1/auth/login", Body: `{"username":"a","password":"b","admin":true}`, NoContract: true}, 400, "bad_request"},
		"wrong type":    {req{Method: "POST", Path: "/v1/auth/login", Body: `{"username":1,"password":"b"}`, NoContract: true}, 400, "bad_request"},
		"not json":      {req{Method: "POST", Path: "/v1/auth/login", Body: `{"username":`, NoContract: true}, 400, "bad_request"},
		"two values":    {req{Method: "POST", Path: "/v1/auth/login", Body: `{"username":"a","password":"b"} {}`, NoContract: true}, 400, "bad_request"},
		"too large":     {req{Method: "POST", Path: "/v1/auth/login", Body: `{"username":"` + strings.Repeat("a", 70<<10) + `","password":"b"}`, NoContract: true}, 413, "body_too_large"},
		"bad id":        {req{Method: "GET", Path: "/v1/games/abc", Token: gil.Access, NoContract: true}, 400, "bad_request"},
		"no such game":  {req{Method: "GET", Path: "/v1/games/999", Token: gil.Access}, 404, "not_found"},
		"bad cursor":    {req{Method: "GET", Path: "/v1/games?cursor=zzz", Token: gil.Access}, 400, "bad_request"},
		"bad username":  {req{Method: "POST", Path: "/v1/auth/register", Body: map[string]string{"username": "A!", "password": "password1"}, NoContract: true}, 422, "invalid"},
	} {
		r := e.do(c.r)
		if r.Status != c.want || r.code(t) != c.code {
			t.Errorf("%s: %d %s, want %d %s", name, r.Status, r.Body, c.want, c.code)
		}
	}
	r, err := http.Post(e.srv.URL+"/v1/auth/login", "text/plain", strings.NewReader(`{}`))
	if err != nil || r.StatusCode != 415 {
		t.Errorf("text/plain body: %v %v", r.StatusCode, err)
	}
}

func TestOperations(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		e.must(200, req{Method: "GET", Path: "/healthz"})
		e.must(200, req{Method: "GET", Path: "/readyz"})
		r := e.must(200, req{Method: "GET", Path: "/openapi.yaml"})
		if !strings.HasPrefix(string(r.Body), "openapi: 3.1") {
			t.Fatalf("openapi: %.40s", r.Body)
		}
		res, err := http.Get(e.srv.URL + "/healthz")
		if err != nil || res.Header.Get("X-Request-ID") == "" {
			t.Fatal("no request id")
		}
		req2, _ := http.NewRequest("GET", e.srv.URL+"/healthz", nil)
		req2.Header.Set("X-Request-ID", "abc-123")
		res, _ = http.DefaultClient.Do(req2)
		if res.Header.Get("X-Request-ID") != "abc-123" {
			t.Fatal("request id not echoed")
		}
	})
}

func TestRateLimitIgnoresForwardedFor(t *testing.T) {
	e := newEnv(t, "sqlite", testConfig())
	e.register("gus")
	for i := range 12 {
		r := e.do(req{Method: "POST", Path: "/v1/auth/login", Header: map[string]string{"X-Forwarded-For": "10.0.0." + itoa(int64(i))},
			Body: map[string]string{"username": "gus", "password": "wrong-password"}})
		if i >= 10 && r.Status != 429 {
			t.Fatalf("attempt %d with a spoofed X-Forwarded-For: %d", i, r.Status)
		}
	}
}
