package models

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"
)

// refBatch sends the GameRef reads of signed-in users that arrive while
// others are under way as one query (qGameRefs), on Postgres, when reads
// come fast: the reads of games, the API's most frequent request, then
// cost Postgres and the server one round trip a batch instead of one
// each.
//
// While reads come at more than busy a second (counted over a window of
// refWindow), a read that finds a batch under way joins the queue, which
// the batch sends as a batch of its own when it ends; one that finds none
// sends its query at once, as a batch of one. Slower, a read is not for
// a batch: its caller sends its own query, under its request's context.
// Then the reads cost little of Postgres's time, and waiting for another
// read's round trip only made each later (at turn pace on 2 cores, with
// Postgres busy with the changes, a read of a game took twice as long).
// So every read is answered by a query sent after it arrived (a reader
// sees every change committed before its request), and a read that
// finds nothing under way waits for nothing.
type refBatch struct {
	pool *sql.DB
	busy float64 // reads a second above which reads wait for each other
	mu   sync.Mutex
	// queue waits for the batch under way; running counts the batches
	// under way.
	queue   []*refCall
	running int
	// batching says that reads came at more than busy a second in the
	// last window, which began at window and has counted reads.
	batching bool
	window   time.Time
	reads    int
	// sent counts a batch's query (CountStatementsForTest).
	sent func()
	// tests is the store's (its bound on a batch's query).
	tests *storeTests
	// hold, when set, is called with each batch's size before its query
	// is sent, and an error it returns is the batch's (HoldRefBatchesForTest).
	hold func(n int) error
}

// refCall is one GameRef read in a batch: its question, and its answer
// once done is closed.
type refCall struct {
	game, user int64
	session    string
	ref        GameRef
	err        error
	done       chan struct{}
}

// refBatchMax is the largest batch: the reads of one query.
const refBatchMax = 64

// refBatchTimeout bounds a batch's query, which serves several requests
// and so runs under none's context.
const refBatchTimeout = 30 * time.Second

// get answers the read of game as user with session (see Store.GameRef)
// while reads come fast; slower, it reports at once that the read is not
// for a batch (batched false), and its caller reads on its own.
func (b *refBatch) get(ctx context.Context, game, user int64, session string) (ref GameRef, batched bool, err error) {
	now := time.Now()
	b.mu.Lock()
	if b.count(now); !b.batching {
		b.mu.Unlock()
		return GameRef{Seat: -1, TokenGen: -1}, false, nil
	}
	c := &refCall{game: game, user: user, session: session, done: make(chan struct{})}
	b.queue = append(b.queue, c)
	var batch []*refCall
	if b.running == 0 {
		b.running++
		batch = b.take()
	}
	b.mu.Unlock()
	if batch != nil {
		b.run(batch)
	}
	select {
	case <-c.done:
		return c.ref, true, c.err
	case <-ctx.Done():
		return GameRef{Seat: -1, TokenGen: -1}, true, ctx.Err()
	}
}

// count counts a read at now, and when the window is over says from its
// count whether reads wait for each other in the next; b.mu is held.
func (b *refBatch) count(now time.Time) {
	b.reads++
	if d := now.Sub(b.window); d >= refWindow {
		b.batching = float64(b.reads) >= b.busy*d.Seconds()
		b.window, b.reads = now, 0
	}
}

// take removes and returns the next batch from the queue; b.mu is held.
func (b *refBatch) take() []*refCall {
	n := min(len(b.queue), refBatchMax)
	batch := b.queue[:n:n]
	b.queue = b.queue[n:]
	if len(b.queue) == 0 {
		b.queue = nil
	}
	return batch
}

// run answers batch, then hands what queued meanwhile to a batch of its
// own, or ends one of the running.
func (b *refBatch) run(batch []*refCall) {
	bound := b.tests.bound(refBatchTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	err := unanswered(ctx, b.query(ctx, batch), bound)
	cancel()
	for _, c := range batch {
		if err != nil {
			c.ref, c.err = GameRef{Seat: -1, TokenGen: -1}, err
		}
		close(c.done)
	}
	b.mu.Lock()
	if len(b.queue) > 0 {
		next := b.take()
		b.mu.Unlock()
		go b.run(next)
		return
	}
	b.running--
	b.mu.Unlock()
}

// query reads the answers of batch with one qGameRefs. A panic on the
// way is the batch's error: the batch's readers get it, and the reads
// after them still have batches (a panic here would otherwise stop them
// all, or the process when a batch runs on a goroutine of its own).
func (b *refBatch) query(ctx context.Context, batch []*refCall) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("models: a batch of %d games' references: %v", len(batch), p)
		}
	}()
	args := make([]any, 0, 3*len(batch))
	for _, c := range batch {
		args = append(args, c.game, c.user, c.session)
		c.ref = GameRef{Seat: -1, TokenGen: -1}
		c.err = fmt.Errorf("user %d: %w", c.user, ErrNotFound) // unless a row says otherwise
	}
	if b.hold != nil {
		if err := b.hold(len(batch)); err != nil {
			return err
		}
	}
	b.sent()
	rows, err := b.pool.QueryContext(ctx, qGameRefs[len(batch)], args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var i int
		r, game, err := scanGameRef(rows, &i)
		if err != nil {
			return err
		}
		if i < 1 || i > len(batch) {
			return fmt.Errorf("models: a game's reference for request %d of %d", i, len(batch))
		}
		c := batch[i-1]
		c.ref, c.err = r, nil
		if !game {
			c.err = fmt.Errorf("game %d: %w", c.game, ErrNotFound)
		}
	}
	return rows.Err()
}

// qGameRefs[n] is qGameRef for n reads at once, on Postgres: its
// arguments are each read's game, user and session in turn; a row for
// each read whose user exists, with the read's ordinal (from 1) first.
// The reads are a VALUES list rather than arrays: a list's length is in
// the statement's text, so Postgres plans each length once per connection
// (an array's length is not, and a plan made for no length in particular
// costs more than the plan of each call, so it planned every call anew).
// The session is looked up read by read (LATERAL, by the index on
// family_id), as qGameRef does, so that no plan reads every live session.
var qGameRefs = func() []string {
	qs := make([]string, refBatchMax+1)
	var b strings.Builder
	for n := 1; n <= refBatchMax; n++ {
		b.Reset()
		b.WriteString(`
SELECT q.i, g.version, g.public, g.deadline_at, s.seat_no, u.token_gen,
  q.session = '' OR l.live IS NOT NULL
FROM (VALUES `)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			k := 3 * i
			fmt.Fprintf(&b, "(%d, $%d::bigint, $%d::bigint, $%d::text)", i+1, k+1, k+2, k+3)
		}
		b.WriteString(`) AS q(i, game_id, user_id, session)
JOIN users u ON u.id = q.user_id
LEFT JOIN games g ON g.id = q.game_id
LEFT JOIN seats s ON s.game_id = g.id AND s.user_id = u.id
LEFT JOIN LATERAL (SELECT true AS live FROM refresh_tokens r
  WHERE r.family_id = q.session AND r.user_id = u.id AND r.revoked_at IS NULL LIMIT 1) l ON true`)
		qs[n] = b.String()
	}
	return qs
}()

// refBusy is the pace of reads above which they go in batches, and
// refWindow the time over which it is counted. On 2 cores, reads of games
// alone (the bench's GET phase, about 5,000 a second one by one) made 1.45
// times as many reads a second in batches; at turn pace (about 350 reads a
// second while Postgres was busy with changes) a read waited most of a
// busy round trip for another's, and the turns went 10% slower.
const (
	refBusy   = 2000
	refWindow = 100 * time.Millisecond
)
