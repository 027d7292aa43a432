package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	turns "github.com/datamonsters/turns"
	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/api"
	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/models/modelstest"
	"github.com/datamonsters/turns/notifier"
	playpath "github.com/datamonsters/turns/play"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

var (
	specOnce   sync.Once
	specRouter routers.Router
	specDoc    *openapi3.T // the contract as contract closed it
	specErr    error
)

// contract loads openapi.yaml once, closed by strict, and returns a router
// over it.
func contract(t testing.TB) routers.Router {
	t.Helper()
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(turns.OpenAPI)
		if err != nil {
			specErr = err
			return
		}
		if err := doc.Validate(loader.Context); err != nil {
			specErr = fmt.Errorf("openapi.yaml is not valid: %w", err)
			return
		}
		// The tests hold the server to the letter of the contract (and
		// its examples too): no field it does not name.
		if err := strict(doc); err != nil {
			specErr = fmt.Errorf("openapi.yaml: %w", err)
			return
		}
		if err := doc.Validate(loader.Context); err != nil {
			specErr = fmt.Errorf("openapi.yaml closed for the tests is not valid: %w", err)
			return
		}
		// Validate against the test server's address, whatever it is.
		doc.Servers = nil
		specDoc = doc
		specRouter, specErr = legacy.NewRouter(doc)
	})
	if specErr != nil {
		t.Fatal(specErr)
	}
	return specRouter
}

// env is a test server over real HTTP with a client that checks every
// request and response against openapi.yaml.
type env struct {
	t     testing.TB
	srv   *httptest.Server
	base  string // the server's address when it is not srv (another process)
	store *models.Store
	http  *http.Client
	now   func() time.Time
	clock *clock
}

// clock is a settable test clock. It stands still, or with flowing set
// runs on from t at the pace of real time (so that retries come due).
type clock struct {
	mu      sync.Mutex
	t       time.Time
	flowing time.Time // when t was read; zero: the clock stands still
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flowing.IsZero() {
		return c.t
	}
	return c.t.Add(time.Since(c.flowing))
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var testSecret = []byte("test-secret-0123456789abcdef0123456789")

// config is a test server's configuration: the API's and its accounts'.
type config struct {
	api.Config
	accountsConfig
}

type accountsConfig = accounts.Config

func testConfig() config {
	return config{api.Config{Secret: testSecret, MaxBodyBytes: 64 << 10},
		accounts.Config{Secret: testSecret, Issuer: "datamonsters", Audience: "datamonsters-api", AccessTTL: 24 * time.Hour,
			Hash: cheapHash}}
}

// newServer wires a server on st as main does: the play path pl (nil:
// one of its own) and the accounts, which the API calls.
func newServer(st *models.Store, pl *playpath.Service, cfg config, log *slog.Logger, now func() time.Time) *api.Server {
	if pl == nil {
		pl = playpath.New(st, now, log)
	}
	ac := cfg.accountsConfig
	ac.Kinds, ac.Channels = notifier.KindNames(), notifier.Channels
	return api.New(st, pl, accounts.New(st, pl, ac, log, now), cfg.Config, log, now)
}

// newEnv starts a server on a fresh store of dialect.
func newEnv(t testing.TB, d models.Dialect, cfg config) *env {
	t.Helper()
	clk := &clock{t: time.Now().UTC()}
	return envOn(t, modelstest.Open(t, d, models.Options{Now: clk.Now}), clk, cfg)
}

// envOn starts a server on st, whose clock is clk.
func envOn(t testing.TB, st *models.Store, clk *clock, cfg config) *env {
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	srv := httptest.NewServer(newServer(st, nil, cfg, log, clk.Now).Handler())
	t.Cleanup(srv.Close)
	return &env{t: t, srv: srv, store: st, http: srv.Client(), clock: clk}
}

// eachDB runs f in parallel subtests, on SQLite and on Postgres.
func eachDB(t *testing.T, f func(t *testing.T, e *env)) {
	for _, d := range []models.Dialect{models.SQLite, models.Postgres} {
		t.Run(d.String(), func(t *testing.T) {
			t.Parallel()
			f(t, newEnv(t, d, testConfig()))
		})
	}
}

// resp is a response read whole.
type resp struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r *resp) decode(t testing.TB, dst any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, dst); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// problem decodes the body as a problem and returns its code.
func (r *resp) code(t testing.TB) string {
	t.Helper()
	var p struct {
		Code string `json:"code"`
	}
	r.decode(t, &p)
	return p.Code
}

// req is one request; Body is marshalled to JSON unless it is a string.
type req struct {
	Method, Path, Token string
	Body                any
	Header              map[string]string
	NoContract          bool // skip the request check (deliberately bad requests)
}

// do sends r and checks the request (unless NoContract) and the response
// against the contract.
func (e *env) do(r req) *resp {
	e.t.Helper()
	body, err := r.encode()
	if err != nil {
		e.t.Fatal(err)
	}
	// The contract's routes carry no server; match on the path alone.
	check, err := r.request("", body)
	if err != nil {
		e.t.Fatal(err)
	}
	route, params, err := contract(e.t).FindRoute(check)
	if err != nil {
		e.t.Fatalf("%s %s: route not in openapi.yaml: %v", r.Method, r.Path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: check, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, SkipSettingDefaults: true}}
	if !r.NoContract {
		// A JSON body is checked against its schema compiled once, as a
		// response's is below; kin-openapi checks the rest.
		checked, err := validateRequestBody(route.Operation, check.Header.Get("Content-Type"), body)
		if err != nil {
			e.t.Fatalf("%s %s: request breaks openapi.yaml: %v", r.Method, r.Path, err)
		}
		in.Options.ExcludeRequestBody = checked
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			e.t.Fatalf("%s %s: request breaks openapi.yaml: %v", r.Method, r.Path, err)
		}
	}
	hr, err := r.request(e.url(), body)
	if err != nil {
		e.t.Fatal(err)
	}
	res, data, err := e.roundTrip(hr)
	if err != nil {
		e.t.Fatal(err)
	}
	if res.Header.Get("X-Request-ID") == "" {
		e.t.Errorf("%s %s: no X-Request-ID", r.Method, r.Path)
	}
	// A JSON body is checked against its schema compiled once (see
	// bodySchemas); kin-openapi checks the status, headers and the rest.
	checked, err := validateBody(route.Operation, res.StatusCode, res.Header.Get("Content-Type"), data)
	if err != nil {
		e.t.Fatalf("%s %s: response %d breaks openapi.yaml: %v\n%s", r.Method, r.Path, res.StatusCode, err, trim(data))
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode, Header: res.Header,
		Body: io.NopCloser(bytes.NewReader(data)), Options: &openapi3filter.Options{IncludeResponseStatus: true, ExcludeResponseBody: checked}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		e.t.Fatalf("%s %s: response %d breaks openapi.yaml: %v\n%s", r.Method, r.Path, res.StatusCode, err, trim(data))
	}
	if res.StatusCode >= 400 && !strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
		e.t.Errorf("%s %s: error %d is %s, not problem+json", r.Method, r.Path, res.StatusCode, res.Header.Get("Content-Type"))
	}
	return &resp{Status: res.StatusCode, Header: res.Header, Body: data}
}

// raw sends r without the contract's checks of the request or the
// response, and returns an error rather than failing the test: for
// requests fired at once from several goroutines, where a failed check
// must not call t.Fatal off the test's goroutine.
func (e *env) raw(r req) (int, []byte, http.Header, error) {
	body, err := r.encode()
	if err != nil {
		return 0, nil, nil, err
	}
	hr, err := r.request(e.url(), body)
	if err != nil {
		return 0, nil, nil, err
	}
	res, data, err := e.roundTrip(hr)
	if err != nil {
		return 0, nil, nil, err
	}
	return res.StatusCode, data, res.Header, nil
}

// unchecked is raw on the test's goroutine: for server errors, which the
// contract lists for no route (a 503 or 500 of any route is described
// once, in the API's description).
func (e *env) unchecked(r req) *resp {
	e.t.Helper()
	status, data, header, err := e.raw(r)
	if err != nil {
		e.t.Fatal(err)
	}
	return &resp{Status: status, Header: header, Body: data}
}

// roundTrip sends hr and reads the whole response.
func (e *env) roundTrip(hr *http.Request) (*http.Response, []byte, error) {
	res, err := e.http.Do(hr)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	return res, data, err
}

// url is the server's address.
func (e *env) url() string {
	if e.base != "" {
		return e.base
	}
	return e.srv.URL
}

// encode is r's body: a string or bytes as they are, anything else as
// JSON.
func (r req) encode() ([]byte, error) {
	switch b := r.Body.(type) {
	case nil:
		return nil, nil
	case string:
		return []byte(b), nil
	case []byte:
		return b, nil
	}
	return json.Marshal(r.Body)
}

// request is r as an HTTP request to the server at base, with body.
func (r req) request(base string, body []byte) (*http.Request, error) {
	hr, err := http.NewRequest(r.Method, base+r.Path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.Token)
	}
	for k, v := range r.Header {
		hr.Header.Set(k, v)
	}
	return hr, nil
}

func trim(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "..."
	}
	return string(b)
}

// must sends r and fails the test unless the status is want.
func (e *env) must(want int, r req) *resp {
	e.t.Helper()
	res := e.do(r)
	if res.Status != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", r.Method, r.Path, res.Status, want, trim(res.Body))
	}
	return res
}

// player is a registered user with its tokens.
type player struct {
	Name, Access, Refresh string
	ID                    int64
}

func (e *env) register(name string) *player {
	e.t.Helper()
	res := e.must(http.StatusCreated, req{Method: "POST", Path: "/v1/auth/register",
		Body: map[string]string{"username": name, "password": "password-" + name, "email": name + "@example.com"}})
	return session(e.t, name, res)
}

// session is the player name with the tokens of a tokens response.
func session(t testing.TB, name string, r *resp) *player {
	t.Helper()
	var tok struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
		User         struct {
			ID int64 `json:"id"`
		} `json:"user"`
	}
	r.decode(t, &tok)
	return &player{Name: name, Access: tok.AccessToken, Refresh: tok.RefreshToken, ID: tok.User.ID}
}

// cheapHash hashes the tests' passwords at a small cost: at a server's,
// the hundreds of accounts they register were a third of their CPU. Any
// cost checks (accounts.TestPasswordCost).
func cheapHash(p string) string { return accounts.HashPasswordCost(p, 1, 64) }

// saveDeck saves the first prebuilt deck's cards as p's deck name, and
// returns the deck's id and its cards as the API lists them.
func (e *env) saveDeck(p *player, name string) (int64, []map[string]any) {
	var dk struct {
		ID int64 `json:"id"`
	}
	cards := e.prebuiltCards(0)
	e.must(201, req{Method: "POST", Path: "/v1/decks", Token: p.Access, Body: map[string]any{"name": name, "cards": cards}}).decode(e.t, &dk)
	return dk.ID, cards
}

// prebuiltCards is the card list of prebuilt deck i, as the API lists it.
func (e *env) prebuiltCards(i int) []map[string]any {
	e.t.Helper()
	var pre struct {
		Decks []struct {
			Cards []map[string]any `json:"cards"`
		} `json:"decks"`
	}
	e.must(200, req{Method: "GET", Path: "/v1/prebuilt-decks"}).decode(e.t, &pre)
	return pre.Decks[i%len(pre.Decks)].Cards
}

// positionGame starts a fast game of ana and bob with st in place of the
// dealt position and Ana awaited; it returns the game as Ana sees it.
func (e *env) positionGame(ana, bob *player, st *engine.State) game {
	e.t.Helper()
	id := e.startGame(map[string]any{"mode": "fast"}, ana, bob).ID
	if _, err := e.store.Mutate(context.Background(), id, func(g *models.Game) (*models.Change, error) {
		data, err := st.Marshal()
		g.State, g.Version = data, g.Version+1
		for i := range g.Seats {
			g.Seats[i].Awaited = i == 0
		}
		return &models.Change{}, err
	}); err != nil {
		e.t.Fatal(err)
	}
	return e.getGame(id, ana)
}

// scenarioGame is positionGame in the position scenario sc leaves
// (engine.RunScenario).
func (e *env) scenarioGame(ana, bob *player, sc string) game {
	e.t.Helper()
	res, err := engine.RunScenario([]byte(sc))
	if err != nil || res.Failed() {
		e.t.Fatalf("the position: %v %v", err, res)
	}
	return e.positionGame(ana, bob, res.State)
}
