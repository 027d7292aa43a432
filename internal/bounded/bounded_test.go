package bounded_test

import (
	"testing"

	"github.com/datamonsters/turns/internal/bounded"
)

func TestForgetsWhenFull(t *testing.T) {
	c := bounded.New[int, string](2)
	c.Put(1, "a")
	c.Put(2, "b")
	if v, ok := c.Get(1); !ok || v != "a" {
		t.Fatalf("get 1: %q %v", v, ok)
	}
	c.Put(3, "c") // full: 1 and 2 go
	if _, ok := c.Get(1); ok {
		t.Fatal("a full cache kept an old entry")
	}
	if v, ok := c.Get(3); !ok || v != "c" {
		t.Fatalf("get 3: %q %v", v, ok)
	}
	none := bounded.New[int, int](0)
	none.Put(1, 1)
	if _, ok := none.Get(1); ok {
		t.Fatal("a cache of no entries kept one")
	}
}
