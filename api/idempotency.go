package api

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/datamonsters/turns/models"
	"github.com/gin-gonic/gin"
)

// idempotencyKey returns the request's Idempotency-Key ("" for none) and
// the hash of the request it names: method, path and body.
func idempotencyKey(c *gin.Context) (string, []byte, error) {
	key := c.GetHeader("Idempotency-Key")
	if key == "" {
		return "", nil, nil
	}
	if len(key) > 128 {
		return "", nil, badRequest("Idempotency-Key: at most 128 characters")
	}
	body, _ := c.Get(ctxBody)
	raw, _ := body.([]byte)
	sum := sha256.Sum256(append([]byte(c.Request.Method+" "+c.Request.URL.Path+"\n"), raw...))
	return key, sum[:], nil
}

// idempotencyStart reads the request's Idempotency-Key and request hash.
// done is true when it has responded: with a stored response for a repeated
// request, or with an error.
func (s *Server) idempotencyStart(c *gin.Context) (key string, reqHash []byte, done bool) {
	key, reqHash, err := idempotencyKey(c)
	if err != nil {
		writeError(c, err)
		return "", nil, true
	}
	return key, reqHash, key != "" && s.replay(c, userID(c), key, reqHash)
}

// idempotentCreate runs fn, which creates something with the store it is
// given, in one transaction with the idempotency record of the request, and
// responds; a repeated request gets the stored response.
func (s *Server) idempotentCreate(c *gin.Context, fn func(st *models.Store) (response, error)) {
	uid := userID(c)
	key, reqHash, done := s.idempotencyStart(c)
	if done {
		return
	}
	var resp response
	var err error
	err = s.store.InTx(c.Request.Context(), func(tx *models.Store) error {
		if resp, err = fn(tx); err != nil || key == "" {
			return err
		}
		data, err := json.Marshal(resp.body)
		if err != nil {
			return err
		}
		return tx.SaveIdempotency(c.Request.Context(), &models.Idempotency{UserID: uid, Key: key, RequestHash: reqHash, Status: resp.status, Response: data})
	})
	if errors.Is(err, models.ErrConflict) && key != "" && s.replay(c, uid, key, reqHash) {
		return
	}
	if err != nil {
		writeError(c, err)
		return
	}
	for k, v := range resp.header {
		c.Header(k, v)
	}
	c.JSON(resp.status, resp.body)
}

// replay answers from a stored idempotency record and reports whether it
// did.
func (s *Server) replay(c *gin.Context, uid int64, key string, reqHash []byte) bool {
	rec, err := s.store.IdempotencyRecord(c.Request.Context(), uid, key)
	if errors.Is(err, models.ErrNotFound) {
		return false
	}
	if err != nil {
		writeError(c, err)
		return true
	}
	if string(rec.RequestHash) != string(reqHash) {
		writeError(c, newError(http.StatusUnprocessableEntity, "idempotency_key_reused", "Idempotency key reused",
			"this Idempotency-Key was used for a different request"))
		return true
	}
	c.Header("Idempotent-Replayed", "true")
	c.Data(rec.Status, "application/json; charset=utf-8", rec.Response)
	return true
}
