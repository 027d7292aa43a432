package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	turns "github.com/datamonsters/turns"
	"github.com/datamonsters/turns/models"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/gin-gonic/gin"
)

// TestRouteTableMatchesContract checks that every route the server has is
// in openapi.yaml and every operation in openapi.yaml is served.
func TestRouteTableMatchesContract(t *testing.T) {
	contract(t) // the document validates
	doc, err := openapi3.NewLoader().LoadFromData(turns.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, "sqlite", testConfig())
	engine := newServer(e.store, nil, testConfig(), nil, nil).Handler().(*gin.Engine)
	param := regexp.MustCompile(`:(\w+)`)
	served := map[string]bool{}
	for _, r := range engine.Routes() {
		served[r.Method+" "+param.ReplaceAllString(r.Path, "{$1}")] = true
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	var missing, extra []string
	for k := range served {
		if !documented[k] {
			missing = append(missing, k)
		}
	}
	for k := range documented {
		if !served[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("served but not in openapi.yaml: %v\nin openapi.yaml but not served: %v", missing, extra)
	}
	if len(served) < 30 {
		t.Fatalf("only %d routes", len(served))
	}
}

// schemaWalker visits each schema of a document once, recursing into
// properties, items and the composition keywords.
type schemaWalker struct {
	seen  map[*openapi3.Schema]bool
	visit func(s *openapi3.Schema) error
}

func newSchemaWalker(visit func(*openapi3.Schema) error) *schemaWalker {
	return &schemaWalker{seen: map[*openapi3.Schema]bool{}, visit: visit}
}

func (w *schemaWalker) schema(ref *openapi3.SchemaRef) error {
	if ref == nil || ref.Value == nil || w.seen[ref.Value] {
		return nil
	}
	s := ref.Value
	w.seen[s] = true
	if err := w.visit(s); err != nil {
		return err
	}
	refs := []*openapi3.SchemaRef{s.Items, s.Not, s.AdditionalProperties.Schema, s.If, s.Then, s.Else}
	for _, group := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf, s.AllOf, s.PrefixItems} {
		refs = append(refs, group...)
	}
	for _, p := range s.Properties {
		refs = append(refs, p)
	}
	for _, r := range refs {
		if err := w.schema(r); err != nil {
			return err
		}
	}
	return nil
}

func (w *schemaWalker) content(c openapi3.Content) error {
	for _, mt := range c {
		if err := w.schema(mt.Schema); err != nil {
			return err
		}
	}
	return nil
}

// responses walks the schemas of what the server sends: response bodies and
// headers of every operation, and the requests of the webhooks (the server
// is their client).
func (w *schemaWalker) responses(doc *openapi3.T) error {
	var ops []*openapi3.Operation
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			ops = append(ops, op)
		}
	}
	for _, item := range doc.Webhooks {
		for _, op := range item.Operations() {
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				if err := w.content(op.RequestBody.Value.Content); err != nil {
					return err
				}
			}
		}
	}
	for _, op := range ops {
		for _, r := range op.Responses.Map() {
			if r.Value == nil {
				continue
			}
			if err := w.content(r.Value.Content); err != nil {
				return err
			}
			for _, h := range r.Value.Headers {
				if h.Value != nil {
					if err := w.schema(h.Value.Schema); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// all walks every schema of the document: the components, and those written
// in place in parameters, request bodies, responses and webhooks.
func (w *schemaWalker) all(doc *openapi3.T) error {
	for _, s := range doc.Components.Schemas {
		if err := w.schema(s); err != nil {
			return err
		}
	}
	if err := w.responses(doc); err != nil {
		return err
	}
	items := []*openapi3.PathItem{}
	for _, item := range doc.Paths.Map() {
		items = append(items, item)
	}
	for _, item := range doc.Webhooks {
		items = append(items, item)
	}
	for _, item := range items {
		params := item.Parameters
		for _, op := range item.Operations() {
			params = append(params, op.Parameters...)
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				if err := w.content(op.RequestBody.Value.Content); err != nil {
					return err
				}
			}
		}
		for _, p := range params {
			if p.Value != nil {
				if err := w.schema(p.Value.Schema); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// strict closes the contract for the tests: every object schema that names
// its properties and says nothing of others gets additionalProperties:
// false, so that a field the server sends (or a test sends) that
// openapi.yaml does not name fails the test. The published document leaves
// response schemas open, so that clients accept fields added later.
func strict(doc *openapi3.T) error {
	closed := false
	return newSchemaWalker(func(s *openapi3.Schema) error {
		for _, part := range s.AllOf {
			if part.Value != nil && len(part.Value.Properties) > 0 {
				return fmt.Errorf("an allOf part with properties (%s) cannot be closed alone: write the object flat", part.Ref)
			}
		}
		if len(s.Properties) == 0 || s.AdditionalProperties.Has != nil || s.AdditionalProperties.Schema != nil {
			return nil
		}
		s.AdditionalProperties.Has = &closed
		return nil
	}).all(doc)
}

// failRecorder is a testing.TB that records failures instead of failing:
// the test of the contract check. Fatal ends the calling goroutine.
type failRecorder struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (r *failRecorder) Helper() {}

func (r *failRecorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func (r *failRecorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *failRecorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// failures runs f with a recorder and returns what it recorded.
func failures(t testing.TB, f func(tb testing.TB)) []string {
	r := &failRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.msgs
}

// grafting is a proxy in front of a test server that adds a field to the
// JSON bodies it passes on, where graft puts it.
func grafting(t *testing.T, target string, graft func(body map[string]any)) *httptest.Server {
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out, err := http.NewRequest(r.Method, target+r.URL.RequestURI(), r.Body)
		if err != nil {
			t.Error(err)
			return
		}
		out.Header = r.Header.Clone()
		res, err := http.DefaultClient.Do(out)
		if err != nil {
			t.Error(err)
			return
		}
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		var body map[string]any
		if json.Unmarshal(data, &body) == nil {
			graft(body)
			data, _ = json.Marshal(body)
		}
		for k, v := range res.Header {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(res.StatusCode)
		w.Write(data)
	}))
	t.Cleanup(p.Close)
	return p
}

// TestContractRefusesUndeclaredFields is the test of the contract check:
// a response carrying a field that openapi.yaml does not name (at the top,
// nested, in an array item, in a problem) fails the tests, while the
// published document, open for clients that grow with it, accepts it.
func TestContractRefusesUndeclaredFields(t *testing.T) {
	e := newEnv(t, models.SQLite, testConfig())
	ana := e.register("ana")
	published, err := openapi3.NewLoader().LoadFromData(turns.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	published.Servers = nil
	open, err := legacy.NewRouter(published)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		r     req
		graft func(map[string]any)
	}{
		{"top level", req{Method: "GET", Path: "/v1/me", Token: ana.Access}, func(b map[string]any) { b["surprise"] = 1 }},
		{"nested object", req{Method: "GET", Path: "/v1/me", Token: ana.Access}, func(b map[string]any) {
			if n, ok := b["notifications"].(map[string]any); ok { // not in a problem
				n["surprise"] = true
			}
		}},
		{"array item", req{Method: "GET", Path: "/v1/cards"}, func(b map[string]any) {
			if cards, ok := b["cards"].([]any); ok && len(cards) > 3 {
				if c, ok := cards[3].(map[string]any); ok {
					c["surprise"] = "x"
				}
			}
		}},
		{"problem", req{Method: "GET", Path: "/v1/games/999", Token: ana.Access}, func(b map[string]any) { b["surprise"] = nil }},
	}
	for _, c := range cases {
		p := grafting(t, e.srv.URL, c.graft)
		msgs := failures(t, func(tb testing.TB) {
			grafted := *e
			grafted.t, grafted.base = tb, p.URL
			grafted.do(c.r)
		})
		if len(msgs) == 0 || !strings.Contains(msgs[0], "surprise") {
			t.Errorf("%s: the contract check let an undeclared field through: %q", c.name, msgs)
		}
		// The published document takes it: clients accept fields added later.
		res, err := http.Get(p.URL + c.r.Path)
		if c.r.Token != "" {
			hr, _ := http.NewRequest(c.r.Method, p.URL+c.r.Path, nil)
			hr.Header.Set("Authorization", "Bearer "+c.r.Token)
			res, err = http.DefaultClient.Do(hr)
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		hr, _ := http.NewRequest(c.r.Method, c.r.Path, nil)
		route, params, err := open.FindRoute(hr)
		if err != nil {
			t.Fatal(err)
		}
		in := &openapi3filter.RequestValidationInput{Request: hr, PathParams: params, Route: route}
		if err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in, Status: res.StatusCode, Header: res.Header, Body: io.NopCloser(bytes.NewReader(data)),
			Options: &openapi3filter.Options{IncludeResponseStatus: true}}); err != nil {
			t.Errorf("%s: the published document refuses a field added later: %v", c.name, err)
		}
	}
	// The same requests without a graft pass.
	for _, c := range cases {
		if msgs := failures(t, func(tb testing.TB) {
			plain := *e
			plain.t = tb
			plain.do(c.r)
		}); len(msgs) > 0 {
			t.Errorf("%s without a graft: %q", c.name, msgs)
		}
	}
}

// TestPublishedResponsesAreOpen: no schema of what the server sends
// (responses, stream events, webhook bodies) refuses unknown fields in the
// published openapi.yaml.
func TestPublishedResponsesAreOpen(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(turns.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	var closed []string
	w := newSchemaWalker(func(s *openapi3.Schema) error {
		if h := s.AdditionalProperties.Has; h != nil && !*h {
			var names []string
			for n := range s.Properties {
				names = append(names, n)
			}
			sort.Strings(names)
			closed = append(closed, strings.Join(names, ","))
		}
		return nil
	})
	if err := w.responses(doc); err != nil {
		t.Fatal(err)
	}
	if len(closed) > 0 {
		t.Fatalf("response schemas with additionalProperties: false (their properties): %q", closed)
	}
	if len(w.seen) < 40 {
		t.Fatalf("only %d response schemas walked", len(w.seen))
	}
}
