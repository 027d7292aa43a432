package notifier

import (
	"encoding/json"
	"strings"
	"unicode"
)

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
