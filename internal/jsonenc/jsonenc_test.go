package jsonenc

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

type inner struct {
	N int    `json:"n"`
	S string `json:"s,omitempty"`
}

type custom struct{ v string }

func (c custom) MarshalJSON() ([]byte, error) { return []byte(` { "v" : "` + c.v + `" } `), nil }

type sample struct {
	Name    string            `json:"name"`
	HTML    string            `json:"html"`
	Zero    inner             `json:"zero,omitzero"`
	Kept    inner             `json:"kept,omitzero"`
	Empty   []int             `json:"empty,omitempty"`
	Nil     []string          `json:"nil"`
	List    []inner           `json:"list"`
	Map     map[string]int    `json:"map"`
	Ptr     *inner            `json:"ptr,omitempty"`
	At      time.Time         `json:"at"`
	Raw     json.RawMessage   `json:"raw"`
	Custom  custom            `json:"custom"`
	Float   float64           `json:"float"`
	Bytes   []byte            `json:"bytes"`
	Any     any               `json:"any"`
	Nested  map[string][]bool `json:"nested,omitempty"`
	private int
}

// TestSameBytes: the encoder gives encoding/json's bytes for the shapes
// the service's types use, and panics in a test binary where they would
// differ.
func TestSameBytes(t *testing.T) {
	values := []any{
		sample{Name: "ana", HTML: `<b>"Bob" & 'co'</b>` + "\u2028\t\x01é",
			Kept: inner{N: 1}, List: []inner{{N: 2, S: "x"}}, Map: map[string]int{"b": 2, "a": 1, "<": 0},
			Ptr: &inner{}, At: time.Date(2026, 12, 3, 10, 0, 0, 5, time.UTC), Raw: json.RawMessage(` {"a" : [1, 2]} `),
			Custom: custom{"c"}, Float: 1e21, Bytes: []byte{0, 1, 2}, Any: []any{1.5, "s", nil, true}},
		sample{Float: math.SmallestNonzeroFloat64, Nested: map[string][]bool{"z": nil, "y": {true}}},
		[]sample{{}, {Name: strings.Repeat("long ", 200)}},
		map[int]string{3: "c", 1: "a"},
		nil,
	}
	for _, v := range values {
		got, err := Marshal(v)
		want, _ := json.Marshal(v)
		if err != nil || string(got) != string(want) {
			t.Errorf("%T: %s (%v), want %s", v, got, err, want)
		}
	}
	for _, bad := range []struct {
		data []byte
		err  error
	}{{[]byte(`{"n":2}`), nil}, {nil, errors.New("refused")}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s, %v: a difference from encoding/json did not panic", bad.data, bad.err)
				}
			}()
			check(inner{N: 1}, bad.data, bad.err)
		}()
	}
	if !checked() {
		t.Error("encodings are not checked in a test binary")
	}
}
