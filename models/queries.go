package models

import (
	"strconv"
	"strings"

	"github.com/datamonsters/turns/engine"
)

// Named SQL for the queries that are more than a lookup by key. Placeholders
// are "?"; GORM rewrites them for Postgres.

const qUpdateProfile = `
UPDATE users SET email = ?, display_name = ?, notify_email = ?, notify_turns = ?, updated_at = ?
WHERE id = ?`

const qRefreshByHash = `
SELECT id, user_id, family_id, token_hash, created_at, expires_at, rotated_at, revoked_at
FROM refresh_tokens WHERE token_hash = ?`

const qRevokeFamily = `
UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL`

// qUserOfRefresh reads the user a refresh token belongs to (any token,
// rotated, revoked or expired too); callers that lock it add the lock
// clause (see Store.lockUser).
const qUserOfRefresh = `
SELECT * FROM users WHERE id = (SELECT user_id FROM refresh_tokens WHERE token_hash = ?)`

// qUserOfRefreshFamily is qUserOfRefresh with the token's family.
const qUserOfRefreshFamily = `
SELECT u.*, r.family_id FROM refresh_tokens r JOIN users u ON u.id = r.user_id WHERE r.token_hash = ?`

// qEndAccessTokens moves a user's access tokens on to the next generation,
// which ends those issued before (see migration 0011).
const qEndAccessTokens = `
UPDATE users SET token_gen = token_gen + 1 WHERE id = ?`

// qRevokeUserRefresh revokes every live refresh token of a user.
const qRevokeUserRefresh = `
UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL`

// qSetPassword replaces a user's password hash if it is still the one the
// caller checked the current password against.
const qSetPassword = `
UPDATE credentials SET password_hash = ?, updated_at = ? WHERE user_id = ? AND password_hash = ?`

// qTakeRate takes one attempt from a token bucket of rate_limits (GCRA; see
// Store.TakeRate). Its arguments: the key; now + every, the tat of a new
// bucket (one attempt taken from a full one); now, now and every, for the
// tat of a stored bucket (the later of its tat and now, plus every); and
// the latest tat from which an attempt may still be taken, now + (burst -
// 1) * every. A bucket with no attempt left is not changed and no row is
// returned. (The space in "( ?" keeps GORM from spreading the key's bytes
// as a list of values.)
const qTakeRate = `
INSERT INTO rate_limits (key, tat) VALUES ( ?, ?)
ON CONFLICT (key) DO UPDATE SET tat = CASE WHEN rate_limits.tat > ? THEN rate_limits.tat ELSE ? END + ?
WHERE rate_limits.tat <= ?
RETURNING tat`

// gameColumns are the games columns but the snapshot, of the game g.
const gameColumns = `g.id, g.created_by, g.status, g.public, g.mode, g.office, g.policy, g.players, g.settings,
  g.version, g.event_seq, g.action_seq, g.winners, g.deadline_at, g.clock_from, g.clock_at, g.created_at, g.updated_at, g.started_at, g.ended_at,
  g.deadline_quiet, g.talk_seq`

// seatColumns are the seats columns, prefixed, for a game row joined with
// its seats (see gameSeatRow).
const seatColumns = `s.seat_no AS s_seat_no, s.user_id AS s_user_id, s.username AS s_username,
  s.invited AS s_invited, s.joined AS s_joined, s.deck AS s_deck, s.awaited AS s_awaited, s.joined_at AS s_joined_at,
  s.bot AS s_bot, s.timeouts AS s_timeouts, s.bot_since AS s_bot_since`

// qGameNoState loads the game row without its snapshot, with its seats
// (one row each) in the same round trip.
const qGameNoState = `
SELECT ` + gameColumns + `, ` + seatColumns + `
FROM games g LEFT JOIN seats s ON s.game_id = g.id WHERE g.id = ? ORDER BY s.seat_no`

// qGameNoStateSession is qGameNoState with a browser session checked
// along (see SessionCheck): the updated_at of its account while the
// session named by its hash is live at the given time, else NULL. It is
// the board's read: the seats' deck lists come only before the start (a
// started game's are in its state, engine.Player.DeckList), which spares
// Postgres writing out a JSON document a seat on every page.
var qGameNoStateSession = `
SELECT ` + gameColumns + `, ` + strings.Replace(seatColumns, "s.deck AS", "CASE WHEN g.started_at IS NULL THEN s.deck END AS", 1) + `,
  wu.updated_at AS session_updated_at
FROM games g LEFT JOIN seats s ON s.game_id = g.id
  LEFT JOIN web_sessions ws ON ws.token_hash = ? AND ws.expires_at > ? LEFT JOIN users wu ON wu.id = ws.user_id
WHERE g.id = ? ORDER BY s.seat_no`

// qLockGameCached loads the game row with its seats (one row each), the
// snapshot only on the first and only when the game is no longer at the
// given version (whose state the caller holds; -1 for none); a lock
// appends the FOR UPDATE OF g, s suffix (see Store.lockGameSeats), which
// needs the inner join: every game has its seats from its creation on.
// The join's estimate of seats per game comes from the seats table's
// statistics; without them (a table never analyzed, or much updated
// since) it is thousands, and with it qLockGameRecipients cost enough for
// Postgres to compile it (JIT, tens of milliseconds per change) and to
// scan all users. The limit, a game's most seats, bounds the estimate.
const qLockGameCached = selectGameSeats + fromGameSeats

const fromGameSeats = `
FROM games g JOIN seats s ON s.game_id = g.id WHERE g.id = ? ORDER BY s.seat_no` + limitSeats

// limitSeats bounds a read of one game's seats: it has at most
// engine.MaxPlayers (see qLockGameCached).
const limitSeats = ` LIMIT 4`

// The limit holds every seat of a game.
const _ = uint(4 - engine.MaxPlayers)

// selectGameSeats is the column list of qLockGameCached and
// qLockGameRecipients.
const selectGameSeats = `
SELECT ` + gameColumns + `, CASE WHEN g.version = ? OR s.seat_no > 0 THEN NULL ELSE g.state END AS state, ` + seatColumns

// qLockGameRecipients is qLockGameCached with each seat's user, as the
// outbox reads its recipients (see RecipientsOf), and their quiet hours
// (see Game.QuietHours), in the same round trip.
const qLockGameRecipients = selectGameSeats + recipientsFromGameSeats

// recipientsFromGameSeats ends qLockGameRecipients: the seats' users, from
// the join of the game and its seats.
const recipientsFromGameSeats = `,
  u.id AS u_id, u.username AS u_username, u.email AS u_email, u.display_name AS u_display_name,
  u.notify_email AS u_notify_email, u.notify_turns AS u_notify_turns, u.created_at AS u_created_at,
  u.updated_at AS u_updated_at,
  EXISTS (SELECT 1 FROM notification_prefs p WHERE p.user_id = u.id) AS u_has_prefs,
  EXISTS (SELECT 1 FROM webhooks w WHERE w.user_id = u.id AND w.disabled_at IS NULL) AS u_has_hooks,
  EXISTS (SELECT 1 FROM push_subscriptions ps WHERE ps.user_id = u.id) AS u_has_push,
  u.quiet_start AS u_quiet_start, u.quiet_end AS u_quiet_end, u.time_zone AS u_time_zone
FROM games g JOIN seats s ON s.game_id = g.id LEFT JOIN users u ON u.id = s.user_id
WHERE g.id = ? ORDER BY s.seat_no` + limitSeats

// qLockGameCachedToken and qLockGameRecipientsToken are qLockGameCached and
// qLockGameRecipients reading an access token's check along (see
// TokenCheck): after the seat's columns, the user's token generation
// (NULL for no such user) and whether the session the token names is
// live, as qAccessCheck reads them. Their arguments come after the
// version's: the user's id, the session twice, the user's id.
var (
	qLockGameCachedToken     = selectGameSeats + tokenColumns + fromGameSeats
	qLockGameRecipientsToken = selectGameSeats + tokenColumns + recipientsFromGameSeats
)

var tokenColumns = `,
  (SELECT a.token_gen FROM users a WHERE a.id = ?) AS a_gen,
  ` + liveSession("?") + ` AS a_live`

// qGameRef reads a game's version, visibility and deadline, and the seat
// of a user in it, with the user's token generation and whether the
// session an access token names is live (liveSession): a row for the user,
// whose game columns are NULL if there is no such game; no row if there is
// no such user.
var qGameRef = `
SELECT g.version, g.public, g.deadline_at, s.seat_no, u.token_gen,
  ` + liveSession("u.id") + `
FROM users u LEFT JOIN games g ON g.id = ? LEFT JOIN seats s ON s.game_id = g.id AND s.user_id = u.id
WHERE u.id = ?`

// numbered is q with its "?" placeholders numbered for Postgres ("$1",
// "$2", ...), for the queries sent without GORM (whose texts hold no "?"
// but placeholders).
func numbered(q string) string {
	var b strings.Builder
	k := 0
	for _, r := range q {
		if r == '?' {
			k++
			b.WriteString("$" + strconv.Itoa(k))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pgTexts are the texts for Postgres (numbered) of the queries sent
// without GORM, by their texts with "?" (see Store.direct).
var pgTexts = func() map[string]string {
	m := map[string]string{}
	for _, q := range []string{qGameRef, qGameRefVisitor, qGameNoState, qGameNoStateSession} {
		m[q] = numbered(q)
	}
	for _, q := range []string{qLockGameCached, qLockGameRecipients, qLockGameCachedToken, qLockGameRecipientsToken} {
		m[q], m[q+lockGameSeatsPG] = numbered(q), numbered(q+lockGameSeatsPG)
	}
	return m
}()

// qGameRefVisitor is qGameRef for a reader signed in nowhere (the same
// columns: no seat, token generation -1, no session to end).
const qGameRefVisitor = `
SELECT g.version, g.public, g.deadline_at, NULL, -1, 1 = 1 FROM games g WHERE g.id = ?`

// qGameState reads the snapshot of a game at a version.
const qGameState = `
SELECT state FROM games WHERE id = ? AND version = ?`

const qSeatsOfGames = `
SELECT * FROM seats WHERE game_id IN ? ORDER BY game_id, seat_no`

// qUpdateGame writes the game row (and counts a moved deadline, see
// Store.writeGame). A nil snapshot keeps the stored one: a
// snapshot is never removed, and a mutation that did not read it (see
// MutateCached) and did not replace it leaves it as it is. (The space in
// "COALESCE( ?" keeps GORM from spreading the bytes as a list of values.)
const qUpdateGame = `
UPDATE games SET status = ?, version = ?, event_seq = ?, action_seq = ?, state = COALESCE( ?, state), winners = ?,
  deadline_at = ?, clock_from = ?, clock_at = ?, updated_at = ?, started_at = ?, ended_at = ?, settings = ?,
  deadline_seq = deadline_seq + ?, deadline_set_at = CASE WHEN ? > 0 THEN ? ELSE deadline_set_at END,
  deadline_quiet = ?
WHERE id = ?`

const qUpdateSeat = `
UPDATE seats SET user_id = ?, username = ?, invited = ?, joined = ?, deck = ?, awaited = ?, joined_at = ?,
  bot = ?, timeouts = ?, bot_since = ?
WHERE game_id = ? AND seat_no = ?`

// The game lists. Each uses an index that starts with the caller's user id
// (seats_user, or the partial seats_awaiting) and walks game ids downwards
// from the cursor, so a page costs the same with 100,000 stored games.
const qMyGames = `
SELECT g.* FROM seats s JOIN games g ON g.id = s.game_id
WHERE s.user_id = ? AND s.game_id < ?`

const qMyAwaitedGames = `
SELECT g.* FROM seats s JOIN games g ON g.id = s.game_id
WHERE s.user_id = ? AND s.awaited AND s.game_id < ?`

const qOpenGames = `
SELECT g.* FROM games g
WHERE g.status = 'open' AND g.public AND g.id < ?`

// qNearRating keeps, of the open games, those whose seated players' mean
// rating is between two bounds, a player with no rated game counting as
// the first argument. It reads the 1-4 seats of each game the page walks
// past, by their key.
const qNearRating = `
  AND (SELECT avg(COALESCE(r.rating, ?)) FROM seats s LEFT JOIN ratings r ON r.user_id = s.user_id
       WHERE s.game_id = g.id AND s.user_id IS NOT NULL) BETWEEN ? AND ?`

const qEventsAfter = `
SELECT game_id, seq, version, body, created_at FROM events
WHERE game_id = ? AND seq > ? ORDER BY seq LIMIT ?`

const qEventsSince = `
SELECT game_id, seq, version, body, created_at FROM events
WHERE game_id = ? AND version > ? ORDER BY seq LIMIT ?`

// qLastActionVersion reads the version of a seat's last action up to a
// version (the key's index, read backwards from the game's end).
const qLastActionVersion = `
SELECT version FROM actions
WHERE game_id = ? AND seat = ? AND version <= ? ORDER BY seq DESC LIMIT 1`

// qLastEvents reads the last event of each of the games named (a
// finished game's is its game_over).
const qLastEvents = `
SELECT e.game_id, e.seq, e.version, e.body, e.created_at FROM events e
JOIN games g ON g.id = e.game_id AND e.seq = g.event_seq
WHERE g.id IN ?`

const qPromptsOfGame = `
SELECT * FROM prompts WHERE game_id = ? ORDER BY created_at, prompt_id`

const qIdempotencyGet = `
SELECT * FROM idempotency_keys WHERE user_id = ? AND key = ? AND created_at > ?`

const qIdempotencyExists = `
SELECT count(*) FROM idempotency_keys WHERE user_id = ? AND key = ? AND created_at > ?`

const qIdempotencyPurge = `
DELETE FROM idempotency_keys WHERE created_at < ?`

// qWriteChange is a game change's whole write on Postgres, in one statement
// of data-modifying CTEs: the game row, the changed seats, the new actions,
// events and notifications, the replaced prompts, and then the NOTIFY that
// announces them on AnnounceChannel: the events (with the seats' holders
// the change leaves, Game.Holders) if the game has a live-stream
// connection, the notifications whose users have one (stream_presence),
// in the payloads of notifier.EncodeNotify. A NOTIFY
// makes its commit take a lock every notifying commit shares, so a change
// nobody follows live sends none; a connection writes its row, then waits
// for the running transactions (AwaitRunning) before it reads the stored
// backlog. Its text is the same for every change (the rows come as
// arrays), so each connection prepares it once and Postgres soon plans it
// once: written as a statement per shape of change, its parsing and
// planning cost more than its execution. It goes to the driver as is, with
// "$n" placeholders.
const qWriteChange = `
WITH g AS (
  UPDATE games SET status = $2, version = $3, event_seq = $4, action_seq = $5, state = COALESCE($6, state),
    winners = $7, deadline_at = $8, clock_from = $9, clock_at = $10, updated_at = $11, started_at = $12,
    ended_at = $13, settings = $14, deadline_seq = deadline_seq + $43::int,
    deadline_set_at = CASE WHEN $43::int > 0 THEN $11 ELSE deadline_set_at END, deadline_quiet = $45
  WHERE id = $1),
s AS (
  UPDATE seats s SET user_id = u.user_id, username = u.username, invited = u.invited, joined = u.joined,
    deck = u.deck::jsonb, awaited = u.awaited, joined_at = u.joined_at, bot = u.bot, timeouts = u.timeouts,
    bot_since = u.bot_since
  FROM unnest($15::int[], $16::bigint[], $17::text[], $18::bool[], $19::bool[], $20::text[], $21::bool[],
    $22::timestamptz[], $23::text[], $24::int[], $42::bigint[])
    AS u(seat_no, user_id, username, invited, joined, deck, awaited, joined_at, bot, timeouts, bot_since)
  WHERE s.game_id = $1 AND s.seat_no = u.seat_no),
a AS (
  INSERT INTO actions (game_id, seq, version, seat, user_id, body, created_at)
  SELECT $1, u.seq, u.version, u.seat, u.user_id, u.body::jsonb, $11
  FROM unnest($25::bigint[], $26::bigint[], $27::int[], $28::bigint[], $29::text[]) AS u(seq, version, seat, user_id, body)),
e AS (
  INSERT INTO events (game_id, seq, version, body, created_at)
  SELECT $1, u.seq, $3, u.body::jsonb, $11 FROM unnest($30::bigint[], $31::text[]) AS u(seq, body)),
n AS (
  INSERT INTO notifications (user_id, game_id, kind, body, fill, created_at)
  SELECT u.user_id, u.game_id, u.kind, u.body, NULLIF(u.fill, ''), $11
  FROM unnest($32::bigint[], $33::bigint[], $34::text[], $35::text[], $44::text[]) AS u(user_id, game_id, kind, body, fill)
  RETURNING user_id, id),
pd AS (
  DELETE FROM prompts WHERE $36 AND game_id = $1 AND prompt_id <> ALL($37::text[])),
pi AS (
  INSERT INTO prompts (game_id, prompt_id, seat, body, created_at, deadline_at)
  SELECT $1, u.prompt_id, u.seat, u.body::jsonb, $11, u.deadline_at
  FROM unnest($37::text[], $38::int[], $39::text[], $40::timestamptz[]) AS u(prompt_id, seat, body, deadline_at)
  ON CONFLICT (game_id, prompt_id) DO UPDATE SET seat = excluded.seat, body = excluded.body,
    created_at = excluded.created_at, deadline_at = excluded.deadline_at)
SELECT pg_notify(current_schema() || '.` + AnnounceChannel + `', a.p) FROM (
  SELECT json_build_object('game_id', $1::bigint, 'from_seq', ($30::bigint[])[1], 'to_seq', $4::bigint,
    'seats', $41::bigint[])::text AS p
  WHERE cardinality($30::bigint[]) > 0 AND EXISTS (SELECT 1 FROM stream_presence WHERE game_id = $1)
  UNION ALL
  SELECT json_build_object('notes', json_agg(json_build_object('user_id', n.user_id, 'notification_id', n.id)
    ORDER BY n.id))::text
  FROM n WHERE EXISTS (SELECT 1 FROM stream_presence s WHERE s.user_id = n.user_id AND s.game_id IS NULL)
  HAVING count(*) > 0) a`
