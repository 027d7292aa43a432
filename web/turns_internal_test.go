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
