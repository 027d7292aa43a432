package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
)

// TestPageReadsTakeTurns: with two turns, at most two page reads are
// served at once; the others wait and are served in the order they came;
// a form post does not wait; a reader who leaves while waiting is served
// nothing and frees no one's turn.
func TestPageReadsTakeTurns(t *testing.T) {
	gin.SetMode(gin.TestMode)
	p := &Pages{turns: make(chan struct{}, 2)}
	release := make(chan struct{})
	var mu sync.Mutex
	var served []string
	now, most := 0, 0
	r := gin.New()
	page := func(c *gin.Context) {
		mu.Lock()
		served = append(served, c.Query("n"))
		now++
		most = max(most, now)
		mu.Unlock()
		if c.Request.Method == http.MethodGet {
			<-release
		}
		mu.Lock()
		now--
		mu.Unlock()
		c.Status(http.StatusOK)
	}
	r.GET("/p", p.inTurn, page)
	r.POST("/p", p.inTurn, page)
	do := func(method, n string, ctx context.Context) int {
		req := httptest.NewRequestWithContext(ctx, method, "/p?n="+n, nil)
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		return rec.Code
	}
	waitQueued := func(n int64) {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
			if p.queued.Load() == n {
				return
			}
		}
		t.Fatalf("%d waiting, want %d", p.queued.Load(), n)
	}
	waitServed := func(n int) {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
			mu.Lock()
			got := len(served)
			mu.Unlock()
			if got == n {
				return
			}
		}
		t.Fatalf("served %v, want %d", served, n)
	}
	var wg sync.WaitGroup
	get := func(n string) {
		wg.Add(1)
		go func() { defer wg.Done(); do(http.MethodGet, n, context.Background()) }()
	}
	get("a")
	waitServed(1)
	get("b")
	waitServed(2)
	// A reader who gives up while waiting.
	gone, leave := context.WithCancel(context.Background())
	left := make(chan int)
	go func() { left <- do(http.MethodGet, "gone", gone) }()
	waitQueued(1)
	for i, n := range []string{"c", "d", "e"} { // queued in this order
		get(n)
		waitQueued(int64(i) + 2)
	}
	leave()
	if code := <-left; code != http.StatusServiceUnavailable {
		t.Fatalf("the reader who left: %d", code)
	}
	if code := do(http.MethodPost, "form", context.Background()); code != http.StatusOK {
		t.Fatalf("a form while every turn is taken: %d", code)
	}
	waitServed(3)            // the form, served at once
	for i := 0; i < 5; i++ { // one read ends, the next waiting is served
		release <- struct{}{}
		if i < 3 {
			waitServed(4 + i)
		}
	}
	wg.Wait()
	want := []string{"a", "b", "form", "c", "d", "e"}
	if len(served) != len(want) {
		t.Fatalf("served %v, want %v", served, want)
	}
	for i := range want {
		if served[i] != want[i] {
			t.Fatalf("served %v, want %v", served, want)
		}
	}
	if most > 3 { // two reads and the form
		t.Fatalf("%d served at once", most)
	}
}

// slowClient is a response writer whose Write blocks until unblock is
// closed, as the socket of a reader who takes no bytes does.
type slowClient struct {
	header  http.Header
	status  int
	body    []byte
	writing chan struct{} // closed at the first Write
	unblock chan struct{}
}

func (w *slowClient) Header() http.Header { return w.header }
func (w *slowClient) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}
func (w *slowClient) Write(b []byte) (int, error) {
	select {
	case <-w.writing:
	default:
		close(w.writing)
	}
	<-w.unblock
	w.body = append(w.body, b...)
	return len(b), nil
}

// TestSlowReaderHoldsNoTurn: with one turn, a page being sent to a reader
// who takes no bytes lets the next page read be served; the slow reader
// gets the page whole, with its status and headers, once they read.
func TestSlowReaderHoldsNoTurn(t *testing.T) {
	gin.SetMode(gin.TestMode)
	p := &Pages{turns: make(chan struct{}, 1)}
	r := gin.New()
	r.GET("/page", p.inTurn, func(c *gin.Context) {
		c.Header("X-Page", "yes")
		c.String(http.StatusTeapot, "a long page")
	})
	r.GET("/moved", p.inTurn, func(c *gin.Context) { c.Redirect(http.StatusSeeOther, "/page") })
	slow := &slowClient{header: http.Header{}, writing: make(chan struct{}), unblock: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.ServeHTTP(slow, httptest.NewRequest(http.MethodGet, "/page", nil))
	}()
	select {
	case <-slow.writing:
	case <-time.After(5 * time.Second):
		t.Fatal("the page was never sent")
	}
	next := make(chan *httptest.ResponseRecorder)
	go func() {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/moved", nil))
		next <- rec
	}()
	select {
	case rec := <-next:
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/page" {
			t.Fatalf("the next read: %d, Location %q", rec.Code, rec.Header().Get("Location"))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the next page read waits for the slow reader")
	}
	close(slow.unblock)
	<-done
	if slow.status != http.StatusTeapot || string(slow.body) != "a long page" || slow.header.Get("X-Page") != "yes" {
		t.Fatalf("the slow reader got %d %q %v", slow.status, slow.body, slow.header)
	}
}

// TestPanicInTurn: a page that panics gives its turn back, and what it
// wrote before is dropped, so that the error page is sent alone.
func TestPanicInTurn(t *testing.T) {
	gin.SetMode(gin.TestMode)
	p := &Pages{turns: make(chan struct{}, 1)}
	r := gin.New()
	recovered := func(c *gin.Context) {
		defer func() {
			if recover() != nil {
				c.String(http.StatusInternalServerError, "the error page")
			}
		}()
		c.Next()
	}
	r.GET("/page", recovered, p.inTurn, func(c *gin.Context) {
		c.String(http.StatusOK, "half a page")
		panic("a bug")
	})
	for range 3 { // one turn: a turn kept by the panic would stop the second
		rec := httptest.NewRecorder()
		done := make(chan struct{})
		go func() { defer close(done); r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/page", nil)) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the turn was not given back")
		}
		if rec.Code != http.StatusInternalServerError || rec.Body.String() != "the error page" {
			t.Fatalf("got %d %q", rec.Code, rec.Body.String())
		}
	}
}
