package notifier

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/datamonsters/turns/internal/jsonenc"
)

// Payload encodes a notification's data: body, the JSON of its template
// data (Go field names), which the email job renders; and public, what
// webhooks and the live stream carry (publicJSON). In both, a list is
// never null: a nil slice anywhere in d encodes as [] (see lists), so a
// payload with nothing in a list still matches the contract, whatever
// built it. A nil pointer or map stays null.
func Payload(d Data) (body []byte, public json.RawMessage, err error) {
	if body, err = encodeLists(d); err != nil {
		return nil, nil, err
	}
	public, err = publicJSON(body)
	return body, public, err
}

// encodeLists is the JSON of d with every nil slice in it encoded as []
// (see lists).
func encodeLists(d Data) ([]byte, error) {
	return jsonenc.Marshal(lists(reflect.ValueOf(d)).Interface())
}

// lists returns a copy of v in which every nil slice is an empty one
// (byte slices, which JSON encodes as base64 strings, are left as they
// are). v itself is not changed.
func lists(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(lists(v.Elem()))
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(lists(v.Elem()))
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		for i := range v.NumField() {
			if f := c.Field(i); f.CanSet() {
				f.Set(lists(v.Field(i)))
			}
		}
		return c
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(lists(v.Index(i)))
		}
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(it.Key(), lists(it.Value()))
		}
		return c
	}
	return v
}

// omitted are template fields that mean nothing to an API client.
var omitted = map[string]bool{"Now": true, "Location": true, "UnsubscribeURL": true, "ReplyTo": true, "TimeZone": true, "Host": true,
	"News": true, "Told": true, "Talk": true, "TalkEarlier": true, "Quiet": true, "InYourTurn": true}

// publicJSON turns a notification's template data as encoding/json writes
// it (Go field names) into the JSON that webhooks and the live stream
// carry: snake_case keys, without the rendering-only fields, the keys of
// each object in sorted order, every value as it was. It rewrites the
// bytes in one pass: it is the same JSON that decoding them and encoding
// the result again gives, written at a fraction of the cost.
func publicJSON(raw []byte) (json.RawMessage, error) {
	w := pubWriter{in: raw, out: make([]byte, 0, len(raw))}
	if err := w.value(); err != nil {
		return nil, err
	}
	if w.space(); w.i != len(w.in) {
		return nil, errBadData
	}
	return w.out, nil
}

var errBadData = errors.New("notifier: notification data is not JSON")

// pubWriter is publicJSON's pass over in, writing out.
type pubWriter struct {
	in, out []byte
	i       int
	scratch []byte
}

func (w *pubWriter) space() {
	for w.i < len(w.in) && (w.in[w.i] == ' ' || w.in[w.i] == '\t' || w.in[w.i] == '\n' || w.in[w.i] == '\r') {
		w.i++
	}
}

// value copies the value at w.i, rewriting the objects in it.
func (w *pubWriter) value() error {
	w.space()
	if w.i >= len(w.in) {
		return errBadData
	}
	switch w.in[w.i] {
	case '{':
		return w.object()
	case '[':
		w.out = append(w.out, '[')
		w.i++
		for n := 0; ; n++ {
			w.space()
			if w.i < len(w.in) && w.in[w.i] == ']' {
				w.i++
				w.out = append(w.out, ']')
				return nil
			}
			if n > 0 {
				if w.i >= len(w.in) || w.in[w.i] != ',' {
					return errBadData
				}
				w.i++
				w.out = append(w.out, ',')
			}
			if err := w.value(); err != nil {
				return err
			}
		}
	}
	from := w.i
	if err := w.skipScalar(); err != nil {
		return err
	}
	tok := w.in[from:w.i]
	if tok[0] == '"' && bytes.Contains(tok, []byte(`\ufffd`)) {
		// encoding/json escapes an invalid byte so, and writes the
		// replacement character it decodes to as it is.
		var s string
		if err := json.Unmarshal(tok, &s); err != nil {
			return errBadData
		}
		b, _ := json.Marshal(s)
		w.out = append(w.out, b...)
		return nil
	}
	w.out = append(w.out, tok...)
	return nil
}

// skipScalar moves past the string, number or literal at w.i.
func (w *pubWriter) skipScalar() error {
	if w.in[w.i] == '"' {
		for j := w.i + 1; j < len(w.in); j++ {
			switch w.in[j] {
			case '\\':
				j++
			case '"':
				w.i = j + 1
				return nil
			}
		}
		return errBadData
	}
	from := w.i
	for w.i < len(w.in) && !delimiter(w.in[w.i]) {
		w.i++
	}
	if w.i == from {
		return errBadData
	}
	return nil
}

func delimiter(c byte) bool {
	return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// skip moves past the value at w.i, writing nothing.
func (w *pubWriter) skip() error {
	out := w.out
	err := w.value()
	w.out = out
	return err
}

// member is one written member of an object: its key and where it lies
// in out.
type member struct {
	key      string
	from, to int
}

// object rewrites the object at w.i: snake_case keys, rendering-only
// fields left out, members in the order of their new keys.
func (w *pubWriter) object() error {
	w.i++
	w.out = append(w.out, '{')
	start := len(w.out)
	var members []member
	for n := 0; ; n++ {
		w.space()
		if w.i < len(w.in) && w.in[w.i] == '}' {
			w.i++
			break
		}
		if n > 0 {
			if w.i >= len(w.in) || w.in[w.i] != ',' {
				return errBadData
			}
			w.i++
			w.space()
		}
		if w.i >= len(w.in) || w.in[w.i] != '"' {
			return errBadData
		}
		from := w.i
		if err := w.skipScalar(); err != nil {
			return err
		}
		name := w.in[from+1 : w.i-1]
		var key string
		skip := omitted[string(name)]
		if bytes.IndexByte(name, '\\') >= 0 {
			var s string
			if err := json.Unmarshal(w.in[from:w.i], &s); err != nil {
				return errBadData
			}
			skip, key = omitted[s], snakeCase(s)
		} else if !skip {
			key = snakeKey(name)
		}
		w.space()
		if w.i >= len(w.in) || w.in[w.i] != ':' {
			return errBadData
		}
		w.i++
		if skip {
			if err := w.skip(); err != nil {
				return err
			}
			continue
		}
		if len(members) > 0 {
			w.out = append(w.out, ',')
		}
		m := member{key: key, from: len(w.out)}
		w.out, _ = appendKey(w.out, key)
		w.out = append(w.out, ':')
		if err := w.value(); err != nil {
			return err
		}
		m.to = len(w.out)
		members = append(members, m)
	}
	if !slices.IsSortedFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) }) {
		w.scratch = append(w.scratch[:0], w.out[start:]...)
		slices.SortStableFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
		w.out = w.out[:start]
		for i, m := range members {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			w.out = append(w.out, w.scratch[m.from-start:m.to-start]...)
		}
	}
	w.out = append(w.out, '}')
	return nil
}

// appendKey appends key as a JSON string.
func appendKey(out []byte, key string) ([]byte, error) {
	if !strings.ContainsAny(key, "\"\\<>&") && isPrintableASCII(key) {
		out = append(out, '"')
		out = append(out, key...)
		return append(out, '"'), nil
	}
	b, err := json.Marshal(key)
	return append(out, b...), err
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// snakeKeys caches snakeCase of the field names seen.
var snakeKeys = struct {
	sync.RWMutex
	m map[string]string
}{m: map[string]string{}}

// snakeKey is snakeCase of a field name, cached.
func snakeKey(name []byte) string {
	snakeKeys.RLock()
	k, ok := snakeKeys.m[string(name)]
	snakeKeys.RUnlock()
	if ok {
		return k
	}
	k = snakeCase(string(name))
	snakeKeys.Lock()
	if len(snakeKeys.m) < 4096 {
		snakeKeys.m[string(name)] = k
	}
	snakeKeys.Unlock()
	return k
}

// snakeCase maps GameID to game_id and UnsubscribeURL to unsubscribe_url.
func snakeCase(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i, c := range r {
		if unicode.IsUpper(c) {
			if i > 0 && (unicode.IsLower(r[i-1]) || (i+1 < len(r) && unicode.IsLower(r[i+1]))) {
				b.WriteByte('_')
			}
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}
