package router_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/datamonsters/turns/internal/router"
	"github.com/gin-gonic/gin"
)

// door is a front door that says its name in every answer.
type door struct {
	name   string
	routes func(r *gin.Engine)
}

func (d door) Routes(r *gin.Engine)    { d.routes(r) }
func (d door) NotFound(c *gin.Context) { c.String(http.StatusNotFound, d.name+" not found") }
func (d door) MethodNotAllowed(c *gin.Context) {
	c.String(http.StatusMethodNotAllowed, d.name+" method")
}
func (d door) Failed(c *gin.Context) { c.String(http.StatusInternalServerError, d.name+" failed") }
func serve(h http.Handler, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

// TestDoorsArePeers: each door adds its routes; what no route takes goes
// to the door of the longest prefix of its path (404, 405 and a panic
// alike), and HEAD is answered as GET with a request id, whichever door.
func TestDoorsArePeers(t *testing.T) {
	v1 := door{name: "api", routes: func(r *gin.Engine) {
		r.GET("/v1/thing", func(c *gin.Context) { c.String(http.StatusOK, "thing") })
		r.GET("/v1/panic", func(*gin.Context) { panic("boom") })
	}}
	pages := door{name: "pages", routes: func(r *gin.Engine) {
		r.GET("/page", func(c *gin.Context) { c.String(http.StatusOK, "page") })
		r.GET("/panic", func(*gin.Context) { panic("boom") })
	}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := router.New(router.Config{Log: log},
		router.Mount{Prefix: "/v1/", Door: v1}, router.Mount{Door: pages})
	for _, c := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/v1/thing", 200, "thing"},
		{"GET", "/page", 200, "page"},
		{"GET", "/v1/nothing", 404, "api not found"},
		{"GET", "/nothing", 404, "pages not found"},
		{"GET", "/v1", 404, "pages not found"}, // not under /v1/
		{"POST", "/v1/thing", 405, "api method"},
		{"POST", "/page", 405, "pages method"},
		{"GET", "/v1/panic", 500, "api failed"},
		{"GET", "/panic", 500, "pages failed"},
		{"HEAD", "/page", 200, "page"}, // a GET's answer; net/http sends no body to a HEAD
	} {
		rec := serve(h, c.method, c.path)
		if rec.Code != c.status || strings.TrimSpace(rec.Body.String()) != c.body || rec.Header().Get("X-Request-ID") == "" {
			t.Errorf("%s %s: %d %q (request id %q), want %d %q", c.method, c.path, rec.Code, rec.Body, rec.Header().Get("X-Request-ID"), c.status, c.body)
		}
	}
	alone := router.New(router.Config{Log: log}, router.Mount{Prefix: "/v1/", Door: v1})
	if rec := serve(alone, "GET", "/elsewhere"); rec.Code != 404 || rec.Body.Len() != 0 {
		t.Errorf("a path no door was mounted for: %d %q", rec.Code, rec.Body)
	}
}
