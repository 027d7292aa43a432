package api

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckText: which strings of a body checkText refuses, and the field
// it names.
func TestCheckText(t *testing.T) {
	for body, want := range map[string]string{
		`{"a": "plain", "b": [1, "x", {"c": "é"}]}`:    "",
		`{"a": "\\u0000 is six characters"}`:           "",
		`{"a": "\ud83d\ude00 \"\u00e9\""}`:             "",
		`"\u0000"`:                                     "body: holds a NUL",
		`{"a": "x\u0000"}`:                             "a: holds a NUL",
		`{"a": 1, "b": {"c": [true, "ok", "\u0000"]}}`: "b.c[2]: holds a NUL",
		`{"a": [{"b": "ok"}, {"b": "\ud800"}]}`:        "a[1].b: holds a lone UTF-16 surrogate",
		`{"a": "\udc00"}`:                              "a: holds a lone UTF-16 surrogate",
		`{"a": "\ud800\u0041"}`:                        "a: holds a lone UTF-16 surrogate",
		"{\"a\": \"caf\xe9\"}":                         "a: holds bytes that are not UTF-8",
		`{"m": {"k\u0000": 1}}`:                        "m: a key holds a NUL",
		`{"a": "\u0000`:                                "", // cut off: decoding reports it
		`{"a": [1 2], "b": "\u0000"}`:                  "", // a syntax error first: decoding reports it
	} {
		err := checkText([]byte(body))
		var apiErr *Error
		switch {
		case want == "" && err != nil, want != "" && err == nil:
			t.Errorf("%s: %v, want %q", body, err, want)
		case err != nil && (!errors.As(err, &apiErr) || apiErr.Status != 422 || !strings.HasPrefix(apiErr.Detail, want)):
			t.Errorf("%s: %v, want 422 %q", body, err, want)
		}
	}
}
