package api

import (
	"context"
	"crypto/cipher"
	"crypto/hmac"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/datamonsters/turns/internal/jsonenc"
	"github.com/datamonsters/turns/internal/mac"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
	"github.com/gin-gonic/gin"
)

// Idempotency-Key: a POST that changes state stores its response under the
// key, in the transaction of the change, and a repeat of the same request
// (same method, path and body) gets the stored response again with
// Idempotent-Replayed: true; the key with another request gets 422. Only
// successful responses are stored: a failed request may be sent again with
// the same key.
//
// What the idempotency_keys table holds about a request:
//   - request_hash is an HMAC of method, path and body under the server's
//     secret, not a plain hash: a login body holds a password, and a fast
//     unkeyed hash of it would be a password hash that anyone reading the
//     table could attack offline.
//   - response, for the records written by idempotent, is sealed with
//     AES-256-GCM under a key derived from the server's secret and the raw
//     request body, which the table does not hold: the responses of
//     register, login, refresh and of the creation of API tokens and
//     webhooks carry secrets, and reading the table (or a backup of it) is
//     not enough to open them, nor is the server's secret alone; only a
//     repeat of the request, which carries the body, opens its record. The
//     sealed record also keeps the response's headers (Location,
//     Cache-Control), so a replay has them too. The game mutations of
//     mutateGame seal theirs the same way (a response shows the player's
//     hand). Records stored as plain JSON before sealing are still
//     replayed; replay tells the two apart by the first byte.

// sealedV1 starts a sealed response: then a 12-byte nonce and the
// AES-GCM ciphertext of a sealedResponse. A plain response is JSON and
// starts with '{'.
const sealedV1 = 0x01

// sealedResponse is what a sealed record holds.
type sealedResponse struct {
	Header map[string]string `json:"header,omitempty"`
	Body   json.RawMessage   `json:"body,omitempty"`
}

// idemScope is what scopes an Idempotency-Key besides the caller's user id,
// and how the change runs.
type idemScope struct {
	// subject, for an anonymous request (no user id), is the account the
	// body names: the username of register and login, the refresh token's
	// hash for refresh. The key is stored under user id anonymous as a
	// keyed hash of subject and key, so that two clients that pick the
	// same key for different accounts do not meet, and the table does not
	// name the account.
	subject string
	// outside means fn acts outside the store's transaction (it queues a
	// job through the job queue's own connection): it runs first and the
	// record is written after it succeeded. A repeat after that is answered
	// from the record, and so is a copy sent to the same process while the
	// first runs (runningKeys); two copies on two replicas at the same
	// moment may both act.
	outside bool
}

// anonymous is the user id of the records of anonymous requests: no
// account has it (and 0 is no record to the store).
const anonymous = -1

// user is the user id under which the request's record is stored.
func (sc idemScope) user(c *gin.Context) int64 {
	if sc.subject != "" {
		return anonymous
	}
	return userID(c)
}

// idempotencyKeyHeader is the header a client names its request with, so
// that a repeat gets the first one's response.
const idempotencyKeyHeader = "Idempotency-Key"

// idempotencyKey returns the request's Idempotency-Key as it is stored
// ("" for none) and the keyed hash of the request it names: method, path
// and body.
func (s *Server) idempotencyKey(c *gin.Context, sc idemScope) (string, []byte, error) {
	key := c.GetHeader(idempotencyKeyHeader)
	if key == "" {
		return "", nil, nil
	}
	if len(key) > 128 {
		return "", nil, badRequest("Idempotency-Key: at most 128 characters")
	}
	if !models.Storable(key) {
		return "", nil, badRequest("Idempotency-Key: UTF-8 text without NUL")
	}
	if sc.subject != "" {
		key = "anon:" + base64.RawURLEncoding.EncodeToString(s.mac("idempotency scope", []byte(sc.subject), []byte{0}, []byte(key)))
	}
	return key, s.mac("idempotency request", requestText(c)), nil
}

// requestText is what names a request: method, path and raw body.
func requestText(c *gin.Context) []byte {
	body, _ := c.Get(ctxBody)
	raw, _ := body.([]byte)
	return append([]byte(c.Request.Method+" "+c.Request.URL.Path+"\n"), raw...)
}

// mac is the HMAC-SHA256 of parts under the server's secret, for the use
// label names.
func (s *Server) mac(label string, parts ...[]byte) []byte {
	return mac.Sum(s.cfg.Secret, label, parts...)
}

// idempotentCreate runs fn, which changes something with the store it is
// given, in one transaction with the idempotency record of the caller's
// request, and responds; a repeated request gets the stored response.
func (s *Server) idempotentCreate(c *gin.Context, fn func(st *models.Store) (response, error)) error {
	return s.idempotent(c, idemScope{}, fn)
}

// idempotent is idempotentCreate in scope sc: for an anonymous request, or
// for a change that acts outside the store's transaction.
func (s *Server) idempotent(c *gin.Context, sc idemScope, fn func(st *models.Store) (response, error)) error {
	ctx := c.Request.Context()
	uid := sc.user(c)
	key, reqHash, err := s.idempotencyKey(c, sc)
	if err != nil {
		return err
	}
	if key != "" {
		release, err := s.running.wait(ctx, runningKey{uid, key})
		if err != nil {
			return err
		}
		defer release()
		if answered, err := s.replay(c, uid, key, reqHash); answered {
			return err
		}
	}
	var resp response
	save := func(st *models.Store) error {
		if key == "" {
			return nil
		}
		data, err := s.seal(c, uid, key, resp)
		if err != nil {
			return err
		}
		return st.SaveIdempotency(ctx, &models.Idempotency{UserID: uid, Key: key, RequestHash: reqHash, Status: resp.status, Response: data})
	}
	if sc.outside {
		if resp, err = fn(s.store); err == nil {
			err = save(s.store)
		}
	} else {
		err = s.store.InTx(ctx, func(tx *models.Store) error {
			var err error
			if resp, err = fn(tx); err != nil {
				return err
			}
			return save(tx)
		})
	}
	// A concurrent copy with the same key won: on another server, where
	// running does not reach, its change conflicts with this one (the
	// store's unique key, or a refusal that names it: username_taken).
	if refusal.KindOf(err) == refusal.Conflict && key != "" {
		if answered, rerr := s.replay(c, uid, key, reqHash); answered {
			return rerr
		}
	}
	if err != nil {
		return err
	}
	for k, v := range resp.header {
		c.Header(k, v)
	}
	if resp.body == nil {
		c.Status(resp.status)
		return nil
	}
	writeJSON(c, resp.status, resp.body)
	return nil
}

// runningKeys lets one request with a given Idempotency-Key run at a time
// in this process: a copy of a request that arrives while the first runs
// waits for it, and then finds the record the first stored and gets its
// response. Without it both would act when the change runs outside the
// store's transaction (idemScope.outside: a refresh would find its token
// rotated by the first copy, and revoke the family), and inside it the copy
// could fail on what the first changed before it met the first's record.
// (Game changes wait for each other on the game's lock, on every replica;
// see models.MutateKeyed.) The zero value is ready for use.
type runningKeys struct {
	mu sync.Mutex
	m  map[runningKey]chan struct{} // closed when the request with the key ends
}

// runningKey is an Idempotency-Key as stored: its user id and key.
type runningKey struct {
	uid int64
	key string
}

// wait returns once no other request with k runs, with the function that
// ends this one's turn (to call when it has responded), or ctx's error.
func (r *runningKeys) wait(ctx context.Context, k runningKey) (release func(), err error) {
	for {
		r.mu.Lock()
		busy, ok := r.m[k]
		if !ok {
			if r.m == nil {
				r.m = map[runningKey]chan struct{}{}
			}
			done := make(chan struct{})
			r.m[k] = done
			r.mu.Unlock()
			return func() {
				r.mu.Lock()
				delete(r.m, k)
				r.mu.Unlock()
				close(done)
			}, nil
		}
		r.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// sealKey is the AES-GCM key and additional data of the record of the
// request under (uid, key): the key comes from the server's secret and the
// raw request, so only a repeat of the request opens the record.
func (s *Server) sealKey(c *gin.Context, uid int64, key string) (cipher.AEAD, []byte, error) {
	return mac.AEAD(s.cfg.Secret, "idempotency seal", requestText(c)), []byte(strconv.FormatInt(uid, 10) + "\x00" + key), nil
}

// seal encodes resp for the record of the request under (uid, key).
func (s *Server) seal(c *gin.Context, uid int64, key string, resp response) ([]byte, error) {
	plain := sealedResponse{Header: resp.header}
	if resp.body != nil {
		body, err := jsonenc.Marshal(resp.body)
		if err != nil {
			return nil, err
		}
		plain.Body = body
	}
	data, err := jsonenc.Marshal(plain)
	if err != nil {
		return nil, err
	}
	aead, ad, err := s.sealKey(c, uid, key)
	if err != nil {
		return nil, err
	}
	nonce := randomBytes(aead.NonceSize())
	return aead.Seal(append([]byte{sealedV1}, nonce...), nonce, data, ad), nil
}

// open decodes a stored response, sealed or plain.
func (s *Server) open(c *gin.Context, rec *models.Idempotency) (sealedResponse, error) {
	if len(rec.Response) == 0 || rec.Response[0] != sealedV1 {
		return sealedResponse{Body: rec.Response}, nil
	}
	aead, ad, err := s.sealKey(c, rec.UserID, rec.Key)
	if err != nil {
		return sealedResponse{}, err
	}
	n := aead.NonceSize()
	if len(rec.Response) < 1+n {
		return sealedResponse{}, errors.New("idempotency record: sealed response too short")
	}
	data, err := aead.Open(nil, rec.Response[1:1+n], rec.Response[1+n:], ad)
	if err != nil {
		return sealedResponse{}, err
	}
	var out sealedResponse
	err = json.Unmarshal(data, &out)
	return out, err
}

// replay answers from a stored idempotency record. answered reports
// whether the record decides the answer: written, or else err.
func (s *Server) replay(c *gin.Context, uid int64, key string, reqHash []byte) (answered bool, err error) {
	rec, err := s.store.IdempotencyRecord(c.Request.Context(), uid, key)
	if errors.Is(err, models.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	if !hmac.Equal(rec.RequestHash, reqHash) {
		return true, errIdempotencyKeyReused
	}
	stored, err := s.open(c, rec)
	if err != nil {
		return true, err
	}
	for k, v := range stored.Header {
		c.Header(k, v)
	}
	c.Header("Idempotent-Replayed", "true")
	if len(stored.Body) == 0 {
		c.Status(rec.Status)
		return true, nil
	}
	c.Data(rec.Status, "application/json; charset=utf-8", stored.Body)
	return true, nil
}

var errIdempotencyKeyReused = newError(http.StatusUnprocessableEntity, "idempotency_key_reused", "Idempotency key reused",
	"this Idempotency-Key was used for a different request")
