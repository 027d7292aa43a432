package web

import (
	"bytes"
	"net/http"

	"github.com/gin-gonic/gin"
)

// inTurn serves a page read when one of the Config.Readers turns is free,
// in the order the reads came (a channel's waiting senders are served
// first in, first out); a reader who leaves while waiting is served
// nothing. Forms (POST) do not wait: they hash passwords or wait on a
// game's lock, and a page read should not queue behind them.
//
// The page is drawn into memory and the turn given back before it is sent:
// a reader who takes the bytes slowly (a bad network, or on purpose) holds
// no turn while the server writes to them.
func (p *Pages) inTurn(c *gin.Context) {
	if m := c.Request.Method; m != http.MethodGet && m != http.MethodHead {
		return
	}
	p.queued.Add(1)
	select {
	case p.turns <- struct{}{}:
		p.queued.Add(-1)
	case <-c.Request.Context().Done():
		p.queued.Add(-1)
		c.AbortWithStatus(http.StatusServiceUnavailable) // nobody reads it
		return
	}
	held := &heldWriter{ResponseWriter: c.Writer, status: http.StatusOK, body: buffers.Get().(*bytes.Buffer)}
	c.Writer = held
	drawn := false
	defer func() {
		<-p.turns
		c.Writer = held.ResponseWriter
		if drawn { // after a panic the page recovering from it is drawn anew
			held.send()
		}
		putBuffer(held.body)
	}()
	c.Next()
	drawn = true
}

// heldWriter keeps a response's status and body until send; its headers
// are the response's own.
type heldWriter struct {
	gin.ResponseWriter
	status  int
	written bool          // the status is final: the body started
	body    *bytes.Buffer // from buffers, as the pages drawn are
}

// WriteHeader sets the status until the body starts (as gin's writer does;
// a code of 0 or less, which gin's renderers pass, changes nothing).
func (w *heldWriter) WriteHeader(code int) {
	if !w.written && code > 0 {
		w.status = code
	}
}

func (w *heldWriter) WriteHeaderNow() { w.written = true }

func (w *heldWriter) Write(b []byte) (int, error) {
	w.written = true
	return w.body.Write(b)
}

func (w *heldWriter) WriteString(s string) (int, error) {
	w.written = true
	return w.body.WriteString(s)
}

func (w *heldWriter) Status() int   { return w.status }
func (w *heldWriter) Size() int     { return w.body.Len() }
func (w *heldWriter) Written() bool { return w.written }
func (w *heldWriter) Flush()        {} // sent whole, by send

// send writes the status and body held to the response.
func (w *heldWriter) send() {
	w.ResponseWriter.WriteHeader(w.status)
	if w.body.Len() > 0 {
		w.ResponseWriter.Write(w.body.Bytes())
	}
}
