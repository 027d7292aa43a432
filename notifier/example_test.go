package notifier_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/datamonsters/turns/notifier"
)

// A receiver verifies each delivery with the raw body before decoding it.
func ExampleVerify() {
	secret := []byte("whsec_from_registration")
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "read error", http.StatusBadRequest)
			return
		}
		if err := notifier.Verify(secret, r.Header, body, time.Now(), 0); err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		// Drop r.Header.Get("Webhook-Id") if already seen, then decode body.
		w.WriteHeader(http.StatusNoContent)
	})

	// What the service sends:
	body := `{"id":"dlv-1","event":"turn.awaiting","created_at":"2026-11-29T21:00:00Z","data":{"game_id":42}}`
	ts := time.Now().Unix()
	for _, sig := range []string{notifier.Sign(secret, ts, []byte(body)), notifier.Sign([]byte("wrong"), ts, []byte(body))} {
		req := httptest.NewRequest("POST", "/hooks/dm", strings.NewReader(body))
		req.Header.Set("Webhook-Id", "dlv-1")
		req.Header.Set("Webhook-Timestamp", fmt.Sprint(ts))
		req.Header.Set("Webhook-Signature", sig)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		fmt.Println(rec.Code)
	}
	// Output:
	// 204
	// 401
}

// Sign is HMAC-SHA256 over "<timestamp>.<body>", hex-encoded after "v1=".
func ExampleSign() {
	fmt.Println(notifier.Sign([]byte("secret"), 1700000000, []byte(`{"a":1}`)))
	// Output: v1=49f24e537407743fa4a0242bb63b94b9a47ee99cbbe071ccd8a22550ae411686
}

// Rendering and composing a "your turn" mail; the outbox worker then calls
// Sender.Send with the Message.
func ExampleCompose() {
	d := notifier.YourTurn{
		Common: notifier.Common{Recipient: "Ana", GameID: "42", GameTitle: "Friday lab", Host: "Bob",
			GameURL: "https://dm.example/games/42", UnsubscribeURL: "https://dm.example/v1/unsubscribe?token=t"},
		Turn:  7,
		Since: []string{"Bob drew 2 cards."},
		Hand:  []notifier.Card{{Name: "Data Lake", Lines: []string{"Tool · TECH 2 · SCI 1"}}},
	}
	m, err := notifier.Compose("dm.example", notifier.Address{Name: "Ana", Email: "ana@example.org"}, d, "ev-17.u-3")
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Subject)
	fmt.Println(m.MessageID, m.InReplyTo)
	fmt.Print(m.Text[:strings.Index(m.Text, "Open the game")])
	// Output:
	// [Data Monsters] Friday lab, hosted by Bob
	// game-42.ev-17.u-3@dm.example game-42@dm.example
	// Hello Ana,
	//
	// It is your turn (turn 7).
	//
	// Since you last played:
	//   - Bob drew 2 cards.
	//
	// Your hand (1 card):
	//   * Data Lake
	//       Tool · TECH 2 · SCI 1
	//
}
