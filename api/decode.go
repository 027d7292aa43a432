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

	"github.com/gin-gonic/gin"
)

// ctxBody holds the raw request body once decode has read it.
const ctxBody = "body"

// decode reads the request body as one JSON value into dst, strictly:
// unknown fields, wrong types, trailing data and oversized bodies are errors
// (*Error, or *http.MaxBytesError for the size). The raw body is kept in the
// context for idempotency checks.
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
