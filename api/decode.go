package api

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
)

// ctxBody holds the raw request body once decode has read it.
const ctxBody = "body"

// decode reads the request body as one JSON value into dst, strictly:
// unknown fields, wrong types, trailing data and oversized bodies are errors
// (*Error, or *http.MaxBytesError for the size), and so is a string that
// the databases cannot store as sent (see checkText). The raw body is kept
// in the context for idempotency checks.
func decode(c *gin.Context, dst any) error {
	if ct := c.ContentType(); ct != "application/json" {
		return newError(http.StatusUnsupportedMediaType, "unsupported_media_type", "Unsupported media type",
			"send the body as application/json")
	}
	data, err := io.ReadAll(c.Request.Body)
	if err != nil {
		return jsonError(err)
	}
	c.Set(ctxBody, data)
	if err := checkText(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badRequest("the body must hold a single JSON value")
	}
	return nil
}

// checkText refuses, with a 422 that names the field, the first string of
// the JSON body data (an object's keys included) that a database cannot
// store as sent: one with a NUL character, which Postgres refuses in text
// and in JSON (SQLite would store it), or with bytes that are not UTF-8 or
// a lone UTF-16 surrogate escape, which the JSON decoder would silently
// turn into U+FFFD. Every body of a request goes through decode, so no
// such string reaches the store on either database. It runs before the
// strict decoding, so that it names a field of any type (a time, say); a
// syntax error it stops at is left to the decoding to report.
func checkText(data []byte) error {
	if utf8.Valid(data) && !bytes.Contains(data, []byte(`\u`)) {
		return nil // no escape and no stray byte: nothing to look at
	}
	// The path of the value being read: a frame per open object or array.
	type frame struct {
		object  bool
		name    string // object: the key of the value being read
		index   int    // array: the index of the value being read
		wantKey bool   // object: the next string is a key
	}
	var stack []frame
	path := func(stack []frame) string {
		var b strings.Builder
		for _, f := range stack {
			switch {
			case f.object && b.Len() > 0:
				b.WriteString("." + f.name)
			case f.object:
				b.WriteString(f.name)
			default:
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
			}
		}
		if b.Len() == 0 {
			return "body"
		}
		return b.String()
	}
	next := func() { // the value being read is done
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].wantKey = true
			} else {
				stack[n-1].index++
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var from int64
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or a syntax error: decoding reports it
		}
		raw := data[from:dec.InputOffset()]
		from = dec.InputOffset()
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				stack = append(stack, frame{object: tok == '{', wantKey: true})
			default:
				stack = stack[:len(stack)-1]
				next()
			}
		case string:
			key := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].wantKey
			if what := badText(raw[bytes.IndexByte(raw, '"')+1 : len(raw)-1]); what != "" {
				if key {
					return invalid("%s: a key holds %s, which cannot be stored", path(stack[:len(stack)-1]), what)
				}
				return invalid("%s: holds %s, which cannot be stored", path(stack), what)
			}
			if key {
				stack[len(stack)-1].name, stack[len(stack)-1].wantKey = tok, false
				continue
			}
			next()
		default:
			next()
		}
	}
}

// badText says what of a JSON string, given as its raw text between the
// quotes, no database can store as sent ("" for nothing): a NUL character,
// a lone UTF-16 surrogate escape, or bytes that are not UTF-8.
func badText(s []byte) string {
	hex := func(i int) rune { // the 4 hex digits at s[i:]; -1 if there are not
		if i+4 > len(s) {
			return -1
		}
		n, err := strconv.ParseUint(string(s[i:i+4]), 16, 16)
		if err != nil {
			return -1
		}
		return rune(n)
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && s[i+1] == 'u':
			r := hex(i + 2)
			switch {
			case r == 0:
				return "a NUL character"
			case r >= 0xD800 && r < 0xDC00 && i+7 < len(s) && s[i+6] == '\\' && s[i+7] == 'u':
				if low := hex(i + 8); low >= 0xDC00 && low < 0xE000 {
					i += 12 // a surrogate pair
					continue
				}
				return "a lone UTF-16 surrogate"
			case r >= 0xD800 && r < 0xE000:
				return "a lone UTF-16 surrogate"
			}
			i += 6
		case c == '\\':
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				return "bytes that are not UTF-8"
			}
			i += n
		}
	}
	return ""
}

// jsonError turns a decoding error into a client error that names the field.
func jsonError(err error) error {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
		mb     *http.MaxBytesError
	)
	switch {
	case errors.As(err, &mb):
		return mb
	case errors.Is(err, io.EOF):
		return badRequest("the body is empty")
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("the body is not valid JSON")
	case errors.As(err, &typ):
		return badRequest("field %q: want %s, got %s", typ.Field, typ.Type.String(), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return badRequest("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return badRequest("the body could not be read as JSON")
}

// pathID parses the positive integer path parameter name.
func pathID(c *gin.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, badRequest("%s must be a positive integer", name)
	}
	return id, nil
}

// queryInt parses an optional integer query parameter within [min, max].
func queryInt(c *gin.Context, name string, def, min, max int64) (int64, error) {
	s, ok := c.GetQuery(name)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < min || n > max {
		return 0, badRequest("%s must be an integer from %d to %d", name, min, max)
	}
	return n, nil
}

// Cursors are opaque to clients: base64url of "kind:id".

func encodeCursor(kind string, id int64) *string {
	s := base64.RawURLEncoding.EncodeToString([]byte(kind + ":" + strconv.FormatInt(id, 10)))
	return &s
}

func decodeCursor(c *gin.Context, kind string) (int64, error) {
	s := c.Query("cursor")
	if s == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	k, num, ok := strings.Cut(string(raw), ":")
	id, perr := strconv.ParseInt(num, 10, 64)
	if err != nil || !ok || k != kind || perr != nil || id <= 0 {
		return 0, badRequest("cursor is not one this list returned")
	}
	return id, nil
}

// etagMatch reports whether the request's If-None-Match names etag.
func etagMatch(c *gin.Context, etag string) bool {
	for _, t := range strings.Split(c.GetHeader("If-None-Match"), ",") {
		t = strings.TrimSpace(t)
		if t == etag || t == "*" || strings.TrimPrefix(t, "W/") == strings.TrimPrefix(etag, "W/") {
			return true
		}
	}
	return false
}
