package notifier

import (
	"encoding/json"
	"reflect"
	"strings"
	"unicode"
)

// Payload encodes a notification's data: body, the JSON of its template
// data (Go field names), which the email job renders; and public, what
// webhooks and the live stream carry (publicJSON). In both, a list is
// never null: a nil slice anywhere in d encodes as [] (see lists), so a
// payload with nothing in a list still matches the contract, whatever
// built it. A nil pointer or map stays null.
func Payload(d Data) (body []byte, public json.RawMessage, err error) {
	if body, err = json.Marshal(lists(reflect.ValueOf(d)).Interface()); err != nil {
		return nil, nil, err
	}
	public, err = publicJSON(body)
	return body, public, err
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
var omitted = map[string]bool{"Now": true, "Location": true, "UnsubscribeURL": true, "ReplyTo": true, "TimeZone": true}

// publicJSON turns a notification's template data (Go field names) into
// the JSON that webhooks and the live stream carry: snake_case keys,
// without the rendering-only fields.
func publicJSON(raw []byte) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return json.Marshal(snake(v))
}

func snake(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if omitted[k] {
				continue
			}
			out[snakeCase(k)] = snake(val)
		}
		return out
	case []any:
		for i := range x {
			x[i] = snake(x[i])
		}
		return x
	}
	return v
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
