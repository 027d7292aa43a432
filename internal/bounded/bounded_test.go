package bounded

import (
	"fmt"
	"sync"
	"testing"
)

func TestOldestGoesFirst(t *testing.T) {
	c := New[int, string](3)
	for i := range 3 {
		c.Put(i, fmt.Sprint(i))
	}
	c.Put(0, "zero") // 0 is now the latest put
	c.Put(3, "3")    // 1 goes, the oldest put still held
	if _, ok := c.Get(1); ok {
		t.Fatal("1 stayed, put longest ago")
	}
	for k, want := range map[int]string{0: "zero", 2: "2", 3: "3"} {
		if v, ok := c.Get(k); !ok || v != want {
			t.Fatalf("%d: %q %v, want %q", k, v, ok, want)
		}
	}
	if v, ok := c.Take(2); !ok || v != "2" {
		t.Fatalf("take 2: %q %v", v, ok)
	}
	if _, ok := c.Get(2); ok || c.Len() != 2 {
		t.Fatalf("2 is still there after Take; %d entries", c.Len())
	}
	c.Put(4, "4")
	c.Put(5, "5") // 0 goes: 3, 4, 5 stay
	if _, ok := c.Get(0); ok || c.Len() != 3 {
		t.Fatalf("0 stayed; %d entries", c.Len())
	}
}

func TestPutUnless(t *testing.T) {
	c := New[string, int](4)
	later := func(old, new int) bool { return old > new }
	if !c.PutUnless("g", 5, later) || c.PutUnless("g", 4, later) || !c.PutUnless("g", 6, later) {
		t.Fatal("PutUnless did not keep the later value alone")
	}
	if v, _ := c.Get("g"); v != 6 {
		t.Fatalf("g is %d", v)
	}
	if New[string, int](0).PutUnless("g", 1, nil) {
		t.Fatal("a Map of no entries kept one")
	}
}

// TestManyPutsStayBounded: puts that replace entries leave the order of
// puts bounded too, and the Map holds at most max entries throughout,
// with goroutines at it at once (run it with -race).
func TestManyPutsStayBounded(t *testing.T) {
	c := New[int, int](8)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5000 {
				c.Put((g*7+i)%11, i)
				c.Take(i % 13)
				if n := c.Len(); n > 8 {
					t.Errorf("%d entries", n)
					return
				}
			}
		}()
	}
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.order) > 2*c.max+16 {
		t.Fatalf("%d puts remembered for %d entries", len(c.order), len(c.m))
	}
}
