package api

import (
	"encoding/json"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/play"
)

// Request and response bodies. They are separate from the store's types;
// the JSON names are the contract in openapi.yaml.

type statusResponse struct {
	Status string `json:"status"`
}

type registerRequest struct {
	Username    string `json:"username"`
	Password    string `json:"password"`
	Email       string `json:"email"`
	DisplayName string `json:"display_name"`
}

type loginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

type refreshRequest struct {
	RefreshToken string `json:"refresh_token"`
}

type changePasswordRequest struct {
	CurrentPassword string `json:"current_password"`
	NewPassword     string `json:"new_password"`
}

type tokensResponse struct {
	AccessToken      string       `json:"access_token"`
	TokenType        string       `json:"token_type"`
	ExpiresAt        string       `json:"expires_at"`
	RefreshToken     string       `json:"refresh_token"`
	RefreshExpiresAt string       `json:"refresh_expires_at"`
	User             userResponse `json:"user"`
}

type userResponse struct {
	ID            int64         `json:"id"`
	Username      string        `json:"username"`
	Email         string        `json:"email"`
	DisplayName   string        `json:"display_name"`
	Notifications notifications `json:"notifications"`
	CreatedAt     string        `json:"created_at"`
}

type notifications struct {
	Email bool `json:"email"`
	Turns bool `json:"turns"`
	// Replies: the user's decision emails take replies with moves (in the
	// games with no choice of their own). Read and written by GET and
	// PATCH /v1/me only; nil leaves it out (or unchanged).
	Replies *bool `json:"replies,omitempty"`
}

type updateMeRequest struct {
	Email         *string        `json:"email"`
	DisplayName   *string        `json:"display_name"`
	Notifications *notifications `json:"notifications"`
}

type createTokenRequest struct {
	Name   string   `json:"name"`
	Scopes []string `json:"scopes"`
}

type tokenResponse struct {
	ID         int64    `json:"id"`
	Name       string   `json:"name"`
	Prefix     string   `json:"prefix"`
	Scopes     []string `json:"scopes"`
	CreatedAt  string   `json:"created_at"`
	LastUsedAt *string  `json:"last_used_at"`
	Token      string   `json:"token,omitempty"` // only when created
}

type tokenListResponse struct {
	Tokens []tokenResponse `json:"tokens"`
}

type cardResponse struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Level    string   `json:"level,omitempty"`
	Classes  []string `json:"classes"`
	Tech     int      `json:"tech"`
	Sci      int      `json:"sci"`
	Points   int      `json:"points"`
	Hard     bool     `json:"hard"`
	Keywords []string `json:"keywords"`
	Text     string   `json:"text"`
	Flavor   string   `json:"flavor,omitempty"`
}

type cardListResponse struct {
	Cards []cardResponse `json:"cards"`
}

type deckEntry struct {
	Card  string `json:"card"`
	Count int    `json:"count"`
}

type prebuiltDeck struct {
	ID    string      `json:"id"`
	Name  string      `json:"name"`
	Size  int         `json:"size"`
	Cards []deckEntry `json:"cards"`
}

type prebuiltDeckList struct {
	Decks []prebuiltDeck `json:"decks"`
}

type deckRequest struct {
	Name  string      `json:"name"`
	Cards []deckEntry `json:"cards"`
}

type deckResponse struct {
	ID        int64       `json:"id"`
	Name      string      `json:"name"`
	Size      int         `json:"size"`
	Cards     []deckEntry `json:"cards"`
	CreatedAt string      `json:"created_at"`
	UpdatedAt string      `json:"updated_at"`
}

type deckListResponse struct {
	Decks      []deckResponse `json:"decks"`
	NextCursor *string        `json:"next_cursor"`
}

// deckChoice names a deck: a prebuilt one or one of the caller's.
type deckChoice struct {
	Prebuilt string `json:"prebuilt,omitempty"`
	DeckID   int64  `json:"deck_id,omitempty"`
}

type createGameRequest struct {
	Players               int        `json:"players"`
	Mode                  string     `json:"mode"`
	Office                bool       `json:"office"`
	Public                *bool      `json:"public"`
	Policy                string     `json:"policy"`
	Deck                  deckChoice `json:"deck"`
	Invite                []string   `json:"invite"`
	TurnDeadlineSeconds   int        `json:"turn_deadline_seconds"`
	PromptDeadlineSeconds int        `json:"prompt_deadline_seconds"`
	Bots                  int        `json:"bots"`          // the last seats, played by the service's greedy bot
	TimeoutLimit          *int       `json:"timeout_limit"` // consecutive timeouts before OnTimeouts; nil: 3, 0: never
	OnTimeouts            string     `json:"on_timeouts"`   // "bot" (default) or "forfeit"
	SpectatorMessages     bool       `json:"spectator_messages"`
	// RespectQuietHours moves a deadline out of the quiet hours of the
	// player it awaits; nil: true.
	RespectQuietHours *bool `json:"respect_quiet_hours"`
}

type joinRequest struct {
	Deck deckChoice `json:"deck"`
}

type seatResponse struct {
	Seat     int     `json:"seat"`
	Username *string `json:"username"`
	Invited  bool    `json:"invited"`
	Joined   bool    `json:"joined"`
	Awaited  bool    `json:"awaited"`
}

type gameResponse struct {
	ID                    int64          `json:"id"`
	Status                string         `json:"status"`
	Public                bool           `json:"public"`
	Mode                  string         `json:"mode"`
	Office                bool           `json:"office"`
	Policy                string         `json:"policy"`
	Players               int            `json:"players"`
	Version               int64          `json:"version"`
	TurnDeadlineSeconds   int            `json:"turn_deadline_seconds"`
	PromptDeadlineSeconds int            `json:"prompt_deadline_seconds"`
	SpectatorMessages     bool           `json:"spectator_messages"`
	Seats                 []seatResponse `json:"seats"`
	YourSeat              *int           `json:"your_seat"`
	Winners               []int          `json:"winners"`
	DeadlineAt            *string        `json:"deadline_at"`
	CreatedAt             string         `json:"created_at"`
	StartedAt             *string        `json:"started_at"`
	EndedAt               *string        `json:"ended_at"`
	// RespectQuietHours: the game moves deadlines out of the awaited
	// players' quiet hours; QuietSeats are the seats whose quiet hours
	// moved the current deadline (none: it was not moved).
	RespectQuietHours bool            `json:"respect_quiet_hours"`
	QuietSeats        []int           `json:"deadline_quiet_seats"`
	View              *engine.View    `json:"view,omitempty"`
	Prompts           []engine.Prompt `json:"prompts,omitempty"`
	Legal             *[]legalAction  `json:"legal,omitempty"`
	// Fairness, in the detail of a started game, is its commitment to its
	// secret, and once it is over the secret itself (docs/fairness.md).
	Fairness *play.Fairness `json:"fairness,omitempty"`
}

type gameListResponse struct {
	Games      []gameResponse `json:"games"`
	NextCursor *string        `json:"next_cursor"`
}

type legalResponse struct {
	Version int64         `json:"version"`
	Seat    int           `json:"seat"`
	Actions []legalAction `json:"actions"`
}

// legalAction is one thing the caller may do now, in words: an action to
// submit as it is, or an open prompt (type answer, no choices) to answer
// with min to max distinct ids of its options.
type legalAction struct {
	actionInput
	Text    string          `json:"text"`
	Min     *int            `json:"min,omitempty"`
	Max     *int            `json:"max,omitempty"`
	Options []engine.Option `json:"options,omitempty"`
}

// eventResponse is one logged event, redacted for the reader.
type eventResponse struct {
	Seq       int64        `json:"seq"`
	Version   int64        `json:"version"`
	CreatedAt string       `json:"created_at"`
	Event     engine.Event `json:"event"`
}

type eventListResponse struct {
	Events    []eventResponse `json:"events"`
	NextAfter int64           `json:"next_after"`
}

// actionInput is one action as clients send it (and as legal lists it).
type actionInput struct {
	Type       string         `json:"type"`
	Card       string         `json:"card,omitempty"`
	Challenges []string       `json:"challenges,omitempty"`
	Prompt     string         `json:"prompt,omitempty"`
	Choices    []string       `json:"choices,omitempty"`
	Standing   *standingInput `json:"standing,omitempty"`
}

type standingInput struct {
	Pass  bool                `json:"pass"`
	Plays []standingPlayInput `json:"plays"`
}

type standingPlayInput struct {
	On   string `json:"on"`
	Card string `json:"card"`
}

type submitRequest struct {
	ExpectedVersion *int64            `json:"expected_version"`
	Actions         []submittedAction `json:"actions"`
	Commands        []string          `json:"commands"`
}

// submittedAction is one action of a submission: the action, and the
// descriptive fields of a legal entry (legalAction), which a client may
// send back as it was listed. The server ignores them; they are deprecated
// (see described and docs/api-changes.md).
type submittedAction struct {
	actionInput
	Text    *string           `json:"text"`
	Min     *int              `json:"min"`
	Max     *int              `json:"max"`
	Options []json.RawMessage `json:"options"`
}

// described reports whether a carries a descriptive field of a legal
// entry.
func (a submittedAction) described() bool {
	return a.Text != nil || a.Min != nil || a.Max != nil || a.Options != nil
}

type submitResponse struct {
	Version int64           `json:"version"`
	Status  string          `json:"status"`
	Events  []eventResponse `json:"events"`
	View    *engine.View    `json:"view"`
	Prompts []engine.Prompt `json:"prompts"`
	Legal   []legalAction   `json:"legal"` // what the caller may do next
}
