package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"
)

// The settings the JSON API already has (address, notification
// preferences, vacations, API tokens) are changed through its own routes,
// called in-process as the signed-in user: the pages translate a form to a
// request and the answer to a page, and the API's rules, checks and
// idempotency apply unchanged.

// callAPI sends method path to the JSON API as the signed-in user, with
// in (JSON-encoded; nil: no body), and decodes a 2xx answer into out (nil:
// not read). An error answer is an *apiProblem. key, if not "", is the
// request's Idempotency-Key (a form's, so that sending it twice does it
// once).
func (p *Pages) callAPI(c *gin.Context, method, path string, in, out any, key string) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	// A change the API has begun runs to its end even if the browser goes.
	req, err := http.NewRequestWithContext(context.WithoutCancel(c.Request.Context()), method, path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	// The client's address and request id, for the API's rate limits and
	// logs; the host it asked for, for the addresses the API makes.
	req.RemoteAddr, req.Host = c.Request.RemoteAddr, c.Request.Host
	for _, h := range []string{"X-Forwarded-For", "X-Real-Ip"} {
		if v := c.Request.Header.Values(h); len(v) > 0 {
			req.Header[h] = v
		}
	}
	req.Header.Set("X-Request-ID", c.GetString("request_id"))
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	p.api.CallAs(rec, req, account(c).ID)
	if rec.status >= 300 {
		prob := &apiProblem{Status: rec.status}
		if json.Unmarshal(rec.body.Bytes(), prob) != nil || prob.Detail == "" {
			return fmt.Errorf("web: %s %s: status %d", method, path, rec.status)
		}
		prob.Status = rec.status
		return prob
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(rec.body.Bytes(), out); err != nil {
		return fmt.Errorf("web: %s %s: %w", method, path, err)
	}
	return nil
}

// recorder is the response of an in-process call.
type recorder struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}
