// Package jsonenc encodes the service's hot JSON (a game's snapshot, the
// bodies of its actions and events, the API's answers) to the same bytes
// as encoding/json.Marshal, in less than half its time.
//
// It uses github.com/goccy/go-json, whose output for the types encoded
// here is byte for byte encoding/json's (including omitzero, HTML
// escaping and MarshalJSON methods). Inside a test binary every encoding
// is checked against encoding/json's and a difference panics, so every
// test of the service is also a test of that claim (not while it runs
// benchmarks, which time the service as it serves); a panic of the fast
// encoder outside tests falls back to encoding/json. Decoding stays with
// encoding/json: it reads what users send, where its strictness matters.
package jsonenc

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"sync"
	"testing"

	gojson "github.com/goccy/go-json"
)

// Marshal returns the JSON encoding of v: encoding/json.Marshal's bytes.
func Marshal(v any) ([]byte, error) {
	data, err := fast(v)
	if checked() {
		check(v, data, err)
	}
	return data, err
}

// check panics unless data and err are encoding/json's encoding of v.
func check(v any, data []byte, err error) {
	want, wantErr := json.Marshal(v)
	if (err == nil) != (wantErr == nil) || !bytes.Equal(data, want) {
		panic(fmt.Sprintf("jsonenc: %T encodes as\n%s (%v)\nwhere encoding/json gives\n%s (%v)", v, data, err, want, wantErr))
	}
}

// checked says whether encodings are checked against encoding/json's:
// inside a test binary, unless it runs benchmarks (-test.bench, known once
// the test binary has read its flags, before any test or benchmark runs).
var checked = sync.OnceValue(func() bool {
	if !testing.Testing() {
		return false
	}
	f := flag.Lookup("test.bench")
	return f == nil || f.Value.String() == ""
})

// fast is the fast encoder's encoding, or encoding/json's if it panics.
func fast(v any) (data []byte, err error) {
	defer func() {
		if recover() != nil {
			data, err = json.Marshal(v)
		}
	}()
	return gojson.Marshal(v)
}
