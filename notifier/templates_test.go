package notifier

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/golden files from the current output")

var (
	renderNow = time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	due       = time.Date(2026, 12, 2, 14, 30, 0, 0, time.UTC)
)

func common() Common {
	return Common{
		Recipient:      "Ana",
		GameID:         "42",
		GameTitle:      "Friday lab",
		GameURL:        "https://dm.example/games/42",
		UnsubscribeURL: "https://dm.example/v1/unsubscribe?token=abc",
		SettingsURL:    "https://dm.example/settings/notifications",
		Host:           "Bob",
		Now:            renderNow,
	}
}

var hand = []Card{
	{Name: "Data Lake", Lines: []string{"Tool · TECH 2 · SCI 1", "When played: draw 1 card."}},
	{Name: "Overfit Goblin", Lines: []string{"Junior Monster · Machine Learning", "At the beginning of your turn: look at the top card of your Laboratory Deck."}},
}

var prompts = []Prompt{{
	Text:      "Bob proposes to claim the challenge Sort a Billion Rows. Interrupt?",
	Options:   []string{"pass", "play Null Pointer (cancel the claim)"},
	Deadline:  time.Date(2026, 11, 30, 21, 0, 0, 0, time.UTC),
	OnTimeout: "you pass",
}}

// board is a decision email's board, with a reply address and links.
var board = &Board{Seat: 0, Version: 31, ChallengeDeck: 4,
	Market: []Challenge{{Name: "Sort a Billion Rows", Tech: 4, Sci: 2, Points: 3}, {Name: "Cache Invalidation", Tech: 6, Sci: 5, Points: 5, Hard: true}},
	Global: []BoardCard{{Name: "Code Freeze", About: "Hack", Owner: "Bob"}},
	Seats: []BoardSeat{
		{Name: "Ana", You: true, Active: true, Points: 3, HandCount: 2, DeckCount: 14, Lab: []BoardCard{{Name: "Glitchy", About: "Junior Monster"}}},
		{Name: "Bob", Points: 5, HandCount: 4, DeckCount: 12, Ranking: []BoardCard{{Name: "To-Do List App", About: "Challenge · TECH 3 · SCI 3 · 1 Big Data Point"}}},
	},
	Build: &BoardBuild{Owner: "Ana", Tech: 2, Sci: 1, Tools: []string{"Data Lake"}},
	Lines: []Line{
		{N: 1, Text: "Place Overfit Goblin (Junior) in your Lab", Whole: true, URL: "https://dm.example/games/42/act?v=31&n=1&t=tok1"},
		{N: 2, Text: "Claim Sort a Billion Rows with your build (TECH 2, SCI 1)", Whole: true, URL: "https://dm.example/games/42/act?v=31&n=2&t=tok2"},
		{N: 3, Text: "End your turn, abandoning your build of 1 Tool", Whole: true, URL: "https://dm.example/games/42/act?v=31&n=3&t=tok3"},
	}}

// finalBoard is the board of a finished game: no lines.
var finalBoard = &Board{Seat: 0, Version: 88, ChallengeDeck: 0,
	Seats: []BoardSeat{
		{Name: "Ana", You: true, Points: 9, HandCount: 3, DeckCount: 4, Ranking: []BoardCard{{Name: "Sort a Billion Rows", About: "Challenge · TECH 4 · SCI 2 · 3 Big Data Points"}}},
		{Name: "Cleo", Points: 9, HandCount: 2, DeckCount: 6, Ranking: []BoardCard{{Name: "Cache Invalidation", About: "Challenge · TECH 6 · SCI 5 · 5 Big Data Points"}}},
	}}

// samples has one filled-in value of every kind.
func samples() []Data {
	c := common()
	replying := c
	replying.ReplyTo = "play-abc@dm.example"
	talking := replying
	talking.Talk = []TalkLine{{From: "Cleo", At: renderNow, Text: "Good luck, all <3"},
		{From: "Bob", Private: true, At: due, Text: "Cleo is one claim from winning.\nShall we hold her back?"}}
	talking.TalkEarlier = 2
	talking.TalkReply = true // a message's own email: a reply is a message (Reply.Talk)
	return []Data{
		Invitation{Common: c, Inviter: "Bob", Players: []string{"Bob", "Ana", "Cleo"}, Joined: []string{"Bob", "Cleo"},
			Invited: []string{"Ana"}, Seats: 3, Mode: "standard",
			TurnDeadline: 72 * time.Hour, PromptDeadline: 24 * time.Hour, JoinURL: "https://dm.example/games/42/join"},
		GameStarted{Common: c, Players: []string{"Bob", "Ana", "Cleo"}, FirstPlayer: "Ana", YourTurn: true, Deadline: due},
		YourTurn{Common: replying, Turn: 7, Deadline: due, Hand: hand, Prompts: nil, Board: board,
			Since: []string{"Bob drew 2 cards.", "Bob placed Senior Overfit Goblin in his Lab.", "Cleo claimed Sort a Billion Rows (3 Big Data Points)."},
			News:  []string{"Bob placed Overfit Goblin (Senior) in their Lab.", "Cleo won Sort a Billion Rows (3 Big Data Points)."},
			Told:  []string{"Bob placed Senior Overfit Goblin in his Lab.", "Cleo claimed Sort a Billion Rows (3 Big Data Points)."}},
		PromptWaiting{Common: c, TurnOf: "Bob", Turn: 8, Prompts: prompts, Hand: hand, Deadline: prompts[0].Deadline,
			Since: []string{"Bob played Quantum Annealer into a Software Build."}},
		QueuedActions{Common: c, Dropped: true, Turn: 8, Actions: []string{"Your queued action runs: Play Data Lake into your build (TECH 2, SCI 1 so far)."},
			Reason: "Your 2 queued actions were dropped at \"Claim Sort a Billion Rows\": your build has too little TECH.",
			News:   []string{"Bob played Merge Conflict: your Data Lake (TECH 2, SCI 1) was cancelled."}},
		DeadlineReminder{Common: c, Prompt: true, Prompts: prompts, Deadline: prompts[0].Deadline},
		TimeoutApplied{Common: c, Player: "Ana", You: true, Applied: []string{"Your open build was abandoned.", "You discarded Data Lake down to the hand limit."},
			Consecutive: 2, Limit: 3},
		GameOver{Common: c, Reason: "the last challenge was won", Scores: []Score{
			{Player: "Cleo", Points: 9, Winner: true, Rank: 1}, {Player: "Ana", Points: 9, You: true, Rank: 2}, {Player: "Bob", Points: 4, Rank: 3}},
			TieBreak: "Tied on 9 Big Data Points: Cleo wins with the most valuable challenge, Cache Invalidation (5 Big Data Points).",
			Board:    finalBoard, Secret: "5f0c0d9a3b8e4f21a7c6d2e1f0b9a8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1",
			Salt: "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9", Commitment: "9c1e4f0b2a7d6c5e8f3a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e",
			Replay: "datamonsters replay --url https://dm.example 42"},
		VacationNotice{Common: c, Player: "Bob", From: renderNow, Until: due},
		Digest{Common: Common{Recipient: "Ana", Now: renderNow, UnsubscribeURL: "https://dm.example/v1/unsubscribe?token=d"},
			Day: renderNow, Since: renderNow.Add(-6 * time.Hour), Games: []DigestGame{
				{Title: "Friday lab", URL: "https://dm.example/games/42", YourTurn: true, Deadline: due, Lines: []string{"Bob ended his turn."}},
				{Title: "Office league", URL: "https://dm.example/games/43"},
			}},
		SeatReclaimed{Common: c, Turn: 9, YourTurn: true, Deadline: due, Hand: hand,
			BotDid: []string{"Ana places Overfit Goblin in the Lab.", "Ana ends their turn."}},
		TableTalk{Common: talking, MessageID: 9, From: "Bob", Private: true, Text: "Cleo is one claim from winning.\nShall we hold her back?", At: due},
		ReplyAnswer{Common: replying, Applied: []string{"Place Overfit Goblin (Junior) in your Lab", "End your turn"}, Next: "It is Bob's turn.",
			Since: []string{"Turn 10: Bob begins.", "Bob draws 2 cards."}, Offer: []string{"always pass", "null pointer when claim"}},
	}
}

func TestRenderAllKinds(t *testing.T) {
	t.Parallel()
	seen := map[Kind]bool{}
	for _, d := range samples() {
		seen[d.Kind()] = true
		subject, text, html, err := Render(d)
		if err != nil {
			t.Errorf("%s: %v", d.Kind(), err)
			continue
		}
		if !strings.HasPrefix(subject, "[Data Monsters] ") || strings.ContainsAny(subject, "\r\n") {
			t.Errorf("%s: subject %q", d.Kind(), subject)
		}
		if !strings.HasPrefix(text, "Hello Ana,\n") || strings.Contains(text, "\n\n\n") || strings.Contains(text, " \n") {
			t.Errorf("%s: text body layout:\n%s", d.Kind(), text)
		}
		for _, bad := range []string{"<no value>", "%!", "ZgotmplZ"} {
			if strings.Contains(text, bad) || strings.Contains(html, bad) || strings.Contains(subject, bad) {
				t.Errorf("%s: output contains %q", d.Kind(), bad)
			}
		}
		if !strings.Contains(html, "<p>Hello Ana,</p>") || !strings.Contains(html, "</html>") {
			t.Errorf("%s: html body:\n%s", d.Kind(), html)
		}
		if !strings.Contains(text, d.base().UnsubscribeURL) || !strings.Contains(html, d.base().UnsubscribeURL) {
			t.Errorf("%s: no unsubscribe link", d.Kind())
		}
		golden(t, string(d.Kind())+".txt", "Subject: "+subject+"\n\n"+text)
		golden(t, string(d.Kind())+".html", html)
	}
	for _, k := range Kinds {
		if !seen[k] {
			t.Errorf("no sample for %s", k)
		}
	}
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestRenderAllKinds -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file; got:\n%s", name, got)
	}
}

// The "your turn" mail carries everything the issue asks for.
func TestRenderYourTurnContent(t *testing.T) {
	t.Parallel()
	d := YourTurn{Common: common(), Turn: 7, Deadline: due, Hand: hand, Prompts: prompts,
		Since: []string{"Bob drew 2 cards.", "Cleo claimed Sort a Billion Rows (3 Big Data Points)."}}
	subject, text, html, err := Render(d)
	if err != nil {
		t.Fatal(err)
	}
	if subject != "[Data Monsters] Friday lab, hosted by Bob" {
		t.Errorf("subject = %q", subject)
	}
	for _, want := range []string{
		"It is your turn (turn 7)",
		"Since you last played:\n  - Bob drew 2 cards.\n  - Cleo claimed Sort a Billion Rows (3 Big Data Points).\n",
		"Your hand (2 cards):\n  * Data Lake\n      Tool · TECH 2 · SCI 1\n      When played: draw 1 card.\n  * Overfit Goblin\n",
		// A bullet, not a number: the numbers of an email are its moves'.
		"Waiting for your answer:\n  - Bob proposes to claim the challenge Sort a Billion Rows. Interrupt?\n    You may answer: pass | play Null Pointer (cancel the claim)\n    Answer by Mon 30 Nov 2026, 21:00 UTC. If you do not answer by then, you pass.\n",
		"Deadline: answer by Wed 2 Dec 2026, 14:30 UTC (in 2 days 17 hours)\n",
		"Open the game: https://dm.example/games/42\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, want := range []string{
		"<li>Bob drew 2 cards.</li>", "<strong>Data Lake</strong>", "When played: draw 1 card.",
		"<code>play Null Pointer (cancel the claim)</code>", "Wed 2 Dec 2026, 14:30 UTC (in 2 days 17 hours)",
		`href="https://dm.example/games/42"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("html lacks %q", want)
		}
	}

	// In the recipient's time zone, and without a clock no relative phrase.
	d.Location = time.FixedZone("CET", 3600)
	d.Now = time.Time{}
	_, text, _, _ = Render(d)
	if !strings.Contains(text, "Deadline: answer by Wed 2 Dec 2026, 15:30 CET\n") {
		t.Errorf("time zone / no clock:\n%s", text)
	}
}

// Hostile titles and names are escaped in HTML, cleaned in the subject, and
// a javascript: link is neutralised.
func TestRenderEscaping(t *testing.T) {
	t.Parallel()
	c := common()
	c.GameTitle = "<script>alert(1)</script>\r\nBcc: x@y"
	c.Recipient = `Eve" onmouseover="x`
	c.GameURL = "javascript:alert(1)"
	d := YourTurn{Common: c, Since: []string{"<img src=x onerror=alert(1)>"}, Hand: []Card{{Name: "<b>Card</b>"}}}
	subject, text, html, err := Render(d)
	if err != nil {
		t.Fatal(err)
	}
	if subject != "[Data Monsters] <script>alert(1)</script> Bcc: x@y, hosted by Bob" {
		t.Errorf("subject = %q", subject)
	}
	for _, bad := range []string{"<script>", "<img", "<b>Card</b>", `" onmouseover="`, `href="javascript:`} {
		if strings.Contains(html, bad) {
			t.Errorf("html contains %q", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;", "&lt;img src=x onerror=alert(1)&gt;", "#ZgotmplZ"} {
		if !strings.Contains(html, want) {
			t.Errorf("html lacks %q", want)
		}
	}
	// The text body is plain text: it keeps the characters as typed.
	if !strings.Contains(text, "<img src=x onerror=alert(1)>") {
		t.Errorf("text body changed the event text:\n%s", text)
	}
}

func TestRenderVariants(t *testing.T) {
	t.Parallel()
	c := common()
	for _, tc := range []struct {
		d       Data
		subject string
		text    []string
	}{
		{QueuedActions{Common: c, Actions: []string{"complete the build"}},
			"[Data Monsters] Friday lab, hosted by Bob",
			[]string{"Your queued actions were played", "  - complete the build"}},
		{TimeoutApplied{Common: c, Player: "Bob", Prompt: true, Consecutive: 3, Limit: 3, TakeOver: "bot"},
			"[Data Monsters] Friday lab, hosted by Bob",
			[]string{"Bob ran out of time: the default answers applied.", "After 3 timeouts in a row, a bot now plays Bob's seat."}},
		{TimeoutApplied{Common: c, You: true, Consecutive: 1, Limit: 2, TakeOver: "forfeit"},
			"[Data Monsters] Friday lab, hosted by Bob",
			[]string{"You ran out of time: the turn ended with the default choices.", "After 1 timeout in a row, you have forfeited the game."}},
		{GameOver{Common: c, Scores: []Score{{Player: "Ana", Points: 9, You: true, Winner: true}, {Player: "Bob", Points: 9, Winner: true}}},
			"[Data Monsters] Friday lab, hosted by Bob",
			[]string{"  1. Ana (you): 9  - winner\n  2. Bob: 9  - winner\n", "Game over. You and Bob share the win."}},
		{GameStarted{Common: c, Players: []string{"Bob", "Ana"}, FirstPlayer: "Bob"},
			"[Data Monsters] Friday lab, hosted by Bob",
			[]string{"The game has started: Bob plays first.", "We will tell you when it is your turn."}},
		{DeadlineReminder{Common: c, Deadline: renderNow.Add(90 * time.Minute)},
			"[Data Monsters] Friday lab, hosted by Bob",
			[]string{"Reminder: your turn ends in 1 hour 30 minutes.", "At the deadline it ends with the default choices.",
				"Deadline: your turn ends Sun 29 Nov 2026, 22:30 UTC (in 1 hour 30 minutes)"}},
		{Digest{Common: Common{Recipient: "Ana"}},
			"[Data Monsters] Your digest",
			[]string{"Nothing happened in your games."}},
		{Invitation{Common: Common{GameID: "7", GameURL: "https://dm.example/games/7"}, Inviter: "Bob", Seats: 2, Mode: "fast"},
			"[Data Monsters] game 7",
			[]string{"Hello there,", "a 2-player fast game", "Open the game: https://dm.example/games/7"}},
	} {
		subject, text, _, err := Render(tc.d)
		if err != nil {
			t.Errorf("%s: %v", tc.d.Kind(), err)
			continue
		}
		if subject != tc.subject {
			t.Errorf("%s: subject %q, want %q", tc.d.Kind(), subject, tc.subject)
		}
		for _, want := range tc.text {
			if !strings.Contains(text, want) {
				t.Errorf("%s: text lacks %q:\n%s", tc.d.Kind(), want, text)
			}
		}
	}
	if _, _, _, err := Render(nil); err == nil {
		t.Error("Render(nil) succeeded")
	}
}

func TestHumanDuration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "less than a minute"},
		{59 * time.Second, "less than a minute"},
		{time.Minute, "1 minute"},
		{45 * time.Minute, "45 minutes"},
		{time.Hour + 5*time.Minute + 30*time.Second, "1 hour 5 minutes"},
		{2 * time.Hour, "2 hours"},
		{72 * time.Hour, "3 days"},
		{51*time.Hour + 59*time.Minute, "2 days 3 hours"},
		{24*time.Hour + 30*time.Minute, "1 day"},
	} {
		if got := HumanDuration(tc.d); got != tc.want {
			t.Errorf("HumanDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestDecodeEveryKind: the email worker reads back the stored data of
// every kind as it was written.
func TestDecodeEveryKind(t *testing.T) {
	t.Parallel()
	for _, d := range samples() {
		raw, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeData(d.Kind(), raw)
		if err != nil {
			t.Errorf("%s: %v", d.Kind(), err)
			continue
		}
		again, _ := json.Marshal(got)
		if got.Kind() != d.Kind() || string(again) != string(raw) {
			t.Errorf("%s: read back as %s %s, written %s", d.Kind(), got.Kind(), again, raw)
		}
	}
}

// TestRenderHowToChoose: the words on how to choose say only what the
// email offers. A discard of two options has no line with a link (one
// click cannot choose two); an email without a reply address and no
// link sends the reader to the game, not to links that are not there,
// and a reply address with no link offers no link either.
func TestRenderHowToChoose(t *testing.T) {
	t.Parallel()
	withLinks := func(urls ...string) *Board {
		b := *board
		b.Lines = nil
		for i, u := range urls {
			b.Lines = append(b.Lines, Line{N: i + 1, Text: "Discard Data Lake", Prompt: true, URL: u})
		}
		return &b
	}
	replying := common()
	replying.ReplyTo = "play-abc@dm.example"
	for _, tc := range []struct {
		what       string
		c          Common
		b          *Board
		want, not  string
		wantHTML   string
		notHTMLish string
	}{
		{"all linked", common(), withLinks("https://dm.example/a", "https://dm.example/b"),
			"Open a line's link to choose it.\n", "in the game", "Open a line&#39;s link to choose it.</p>", "in the game"},
		{"some linked", common(), withLinks("https://dm.example/a", ""),
			"the lines without one are chosen in\nthe game.", "Choose in the game", "the lines without one are chosen in the game.", "Choose in the game"},
		{"none linked", common(), withLinks("", ""),
			"Choose in the game: open it with the link below.", "line's link", "Choose in the game: open it with the button below.", "line&#39;s link"},
		{"a reply, none linked", replying, withLinks("", ""),
			"with nothing above.\n", "line's link", "with nothing above.</p>", "line&#39;s link"},
		{"a reply, linked", replying, withLinks("https://dm.example/a", ""),
			"with nothing above. Or open a line's link.", "Choose in the game", "Or open a line&#39;s link.</p>", "Choose in the game"},
	} {
		_, text, html, err := Render(YourTurn{Common: tc.c, Turn: 7, Deadline: due, Hand: hand, Board: tc.b})
		if err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		if !strings.Contains(text, tc.want) || strings.Contains(text, tc.not) {
			t.Errorf("%s: the text should say %q and not %q:\n%s", tc.what, tc.want, tc.not, text)
		}
		if !strings.Contains(html, tc.wantHTML) || strings.Contains(html, tc.notHTMLish) {
			t.Errorf("%s: the HTML should say %q and not %q:\n%s", tc.what, tc.wantHTML, tc.notHTMLish, html)
		}
	}
}

// TestRenderLastRefusalAnswered: the answer to a refused reply that is
// the last the limits against mail loops allow says until when the next
// gets none, in the text and the HTML; one with more left says nothing of
// it.
func TestRenderLastRefusalAnswered(t *testing.T) {
	t.Parallel()
	refused := ReplyAnswer{Common: common(), Refused: "No line of the email's list reads \"hello\".", Line: "hello"}
	last := refused
	last.QuietUntil = renderNow.Add(20 * time.Minute)
	const words = "To keep mail loops away, a reply refused before Sun 29 Nov 2026, 21:20 UTC will get no answer; the game%s page always shows your moves."
	_, text, html, err := Render(last)
	if err != nil {
		t.Fatal(err)
	}
	if want := "  > hello\nNo line of the email's list reads \"hello\".\n\n" + fmt.Sprintf(words, "'s") + "\n"; !strings.Contains(text, want) {
		t.Errorf("text lacks %q:\n%s", want, text)
	}
	if want := "<p>" + fmt.Sprintf(words, "&#39;s") + "</p>"; !strings.Contains(html, want) {
		t.Errorf("HTML lacks %q:\n%s", want, html)
	}
	_, text, html, err = Render(refused)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "mail loops") || strings.Contains(html, "mail loops") {
		t.Errorf("a refusal with more answers left speaks of the limit:\n%s", text)
	}
}
