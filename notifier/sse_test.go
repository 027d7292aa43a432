package notifier

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func recv(t *testing.T, s *Subscription) Event {
	t.Helper()
	select {
	case ev, ok := <-s.Events():
		if !ok {
			t.Fatal("subscription closed")
		}
		return ev
	case <-time.After(2 * time.Second):
		t.Fatal("no event")
	}
	return Event{}
}

func none(t *testing.T, s *Subscription) {
	t.Helper()
	select {
	case ev, ok := <-s.Events():
		t.Fatalf("unexpected event %+v (open %v)", ev, ok)
	default:
	}
}

func TestHubFanOut(t *testing.T) {
	t.Parallel()
	h := NewHub(8)
	ana := h.Subscribe(UserTopic("1"))
	bob := h.Subscribe(UserTopic("2"), GameTopic("42"))
	spectator := h.Subscribe(GameTopic("42"), GameTopic("42")) // duplicate topic counted once
	defer ana.Close()
	defer bob.Close()

	if n := h.Publish(GameTopic("42"), Event{ID: "7", Type: "event", Data: []byte(`{"seq":7}`)}); n != 2 {
		t.Errorf("game publish reached %d, want 2", n)
	}
	if n := h.Publish(UserTopic("1"), Event{ID: "n-1", Type: "turn"}); n != 1 {
		t.Errorf("user publish reached %d, want 1", n)
	}
	if n := h.Publish(UserTopic("3"), Event{ID: "x"}); n != 0 {
		t.Errorf("publish to nobody reached %d", n)
	}
	if ev := recv(t, bob); ev.ID != "7" || string(ev.Data) != `{"seq":7}` {
		t.Errorf("bob got %+v", ev)
	}
	if ev := recv(t, spectator); ev.ID != "7" {
		t.Errorf("spectator got %+v", ev)
	}
	none(t, spectator)
	if ev := recv(t, ana); ev.ID != "n-1" || ev.Type != "turn" {
		t.Errorf("ana got %+v", ev)
	}
	none(t, ana)
	none(t, bob)

	if h.Subscribers(GameTopic("42")) != 2 {
		t.Errorf("subscribers = %d", h.Subscribers(GameTopic("42")))
	}
	spectator.Close()
	spectator.Close() // twice is fine
	if _, ok := <-spectator.Events(); ok {
		t.Error("closed subscription still open")
	}
	if h.Subscribers(GameTopic("42")) != 1 || spectator.Lagged() {
		t.Errorf("after close: subscribers %d, lagged %v", h.Subscribers(GameTopic("42")), spectator.Lagged())
	}
	if n := h.Publish(GameTopic("42"), Event{ID: "8"}); n != 1 {
		t.Errorf("after close publish reached %d", n)
	}
}

// A subscriber that does not read is dropped; the others keep receiving
// and Publish never blocks.
func TestHubDropsLaggingSubscriber(t *testing.T) {
	t.Parallel()
	h := NewHub(4)
	slow := h.Subscribe(GameTopic("1"))
	fast := h.Subscribe(GameTopic("1"))
	var got []string
	for i := range 10 {
		h.Publish(GameTopic("1"), Event{ID: fmt.Sprint(i)})
		got = append(got, recv(t, fast).ID)
	}
	if strings.Join(got, ",") != "0,1,2,3,4,5,6,7,8,9" {
		t.Errorf("fast subscriber got %v", got)
	}
	var slowGot []string
	for ev := range slow.Events() { // closed after the buffered events
		slowGot = append(slowGot, ev.ID)
	}
	if strings.Join(slowGot, ",") != "0,1,2,3" || !slow.Lagged() {
		t.Errorf("slow subscriber got %v, lagged %v; want the first 4 and lagged", slowGot, slow.Lagged())
	}
	if h.Subscribers(GameTopic("1")) != 1 {
		t.Errorf("subscribers = %d, want 1", h.Subscribers(GameTopic("1")))
	}
	h.Close()
	if _, ok := <-fast.Events(); ok || fast.Lagged() {
		t.Error("hub close did not close the fast subscriber cleanly")
	}
	late := h.Subscribe(GameTopic("1"))
	if _, ok := <-late.Events(); ok {
		t.Error("subscribe after close is open")
	}
	if h.Publish(GameTopic("1"), Event{}) != 0 {
		t.Error("publish after close reached someone")
	}
}

// Publishers, subscribers and closers at once; run with -race.
func TestHubConcurrent(t *testing.T) {
	t.Parallel()
	h := NewHub(16)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for p := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				h.Publish(GameTopic(fmt.Sprint(i%3)), Event{ID: fmt.Sprint(p, i)})
			}
		})
	}
	for range 8 {
		wg.Go(func() {
			for i := range 200 {
				s := h.Subscribe(GameTopic(fmt.Sprint(i%3)), UserTopic("u"))
				for range 3 {
					select {
					case <-s.Events():
					default:
					}
				}
				s.Close()
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	h.Close()
	close(stop)
	wg.Wait()
	for i := range 3 {
		if n := h.Subscribers(GameTopic(fmt.Sprint(i))); n != 0 {
			t.Errorf("topic %d has %d subscribers after close", i, n)
		}
	}
}

func TestFormatEvent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ev   Event
		want string
	}{
		{Event{ID: "17", Type: "turn", Data: []byte(`{"game_id":42}`)}, "id: 17\nevent: turn\ndata: {\"game_id\":42}\n\n"},
		{Event{Data: []byte("a\nb\r\nc\rd")}, "data: a\ndata: b\ndata: c\ndata: d\n\n"},
		{Event{ID: "1\r\nevent: x\x00", Type: "t\nid: 9", Data: []byte("x")}, "id: 1event: x\nevent: tid: 9\ndata: x\n\n"},
		{Event{ID: "5"}, "id: 5\ndata: \n\n"},
	} {
		if got := string(FormatEvent(tc.ev)); got != tc.want {
			t.Errorf("FormatEvent(%+v) = %q, want %q", tc.ev, got, tc.want)
		}
	}
}

// sseEvent is an event parsed the way a browser's EventSource parses.
type sseEvent struct{ ID, Type, Data string }

// readSSE parses events and comments from a stream until n events arrived.
func readSSE(t *testing.T, sc *bufio.Scanner, n int) (events []sseEvent, comments []string) {
	t.Helper()
	var cur sseEvent
	var data []string
	for len(events) < n && sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data != nil {
				cur.Data = strings.Join(data, "\n")
				events = append(events, cur)
			}
			cur, data = sseEvent{}, nil
		case strings.HasPrefix(line, ":"):
			comments = append(comments, strings.TrimSpace(line[1:]))
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "id":
				cur.ID = value
			case "event":
				cur.Type = value
			case "data":
				data = append(data, value)
			}
		}
	}
	return events, comments
}

// End to end over HTTP: backlog first, a duplicate skipped, live events,
// heartbeats, and the handler ending when the client leaves.
func TestServeSSE(t *testing.T) {
	t.Parallel()
	h := NewHub(16)
	done := make(chan error, 1)
	subscribed := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sub := h.Subscribe(GameTopic("42"))
		defer sub.Close()
		if LastEventID(r) != "3" {
			http.Error(w, "want Last-Event-ID 3, got "+LastEventID(r), 400)
			return
		}
		// The stored events after 3, read after subscribing; 5 is also
		// published live below and must be sent once.
		backlog := []Event{{ID: "4", Type: "event", Data: []byte("four")}, {ID: "5", Type: "event", Data: []byte("five")}}
		close(subscribed)
		done <- ServeSSE(r.Context(), w, sub, StreamOptions{Backlog: backlog, After: 3, Heartbeat: 30 * time.Millisecond, Retry: 2 * time.Second})
	}))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	req.Header.Set("Last-Event-ID", "3")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	<-subscribed
	// 3 is published late, after the client had it: not sent again.
	h.Publish(GameTopic("42"), Event{ID: "3", Type: "event", Data: []byte("three")})
	h.Publish(GameTopic("42"), Event{ID: "5", Type: "event", Data: []byte("five")})
	h.Publish(GameTopic("42"), Event{ID: "6", Type: "event", Data: []byte("six\nlines")})
	h.Publish(GameTopic("7"), Event{ID: "99", Data: []byte("other game")})

	sc := bufio.NewScanner(resp.Body)
	events, _ := readSSE(t, sc, 3)
	want := []sseEvent{{"4", "event", "four"}, {"5", "event", "five"}, {"6", "event", "six\nlines"}}
	if fmt.Sprint(events) != fmt.Sprint(want) {
		t.Errorf("events = %v, want %v", events, want)
	}
	// Wait for a heartbeat, then a later event still arrives.
	time.Sleep(80 * time.Millisecond)
	h.Publish(GameTopic("42"), Event{ID: "7", Data: []byte("seven")})
	events, comments := readSSE(t, sc, 1)
	if len(events) != 1 || events[0].ID != "7" || len(comments) == 0 || comments[0] != "ping" {
		t.Errorf("after a pause: events %v, comments %v", events, comments)
	}

	cancel()
	select {
	case err := <-done:
		// Usually context.Canceled; a write may notice the closed
		// connection first.
		if err == nil || errors.Is(err, ErrStreamClosed) || errors.Is(err, ErrStreamLagged) {
			t.Errorf("ServeSSE returned %v, want the client's departure", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("ServeSSE did not return after the client left")
	}
	// The handler's deferred Close ran: no subscriber left.
	deadline := time.Now().Add(time.Second)
	for h.Subscribers(GameTopic("42")) != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := h.Subscribers(GameTopic("42")); n != 0 {
		t.Errorf("%d subscribers left", n)
	}
}

// A stream whose subscriber lags ends with ErrStreamLagged, so the client
// reconnects and resumes from the store.
func TestServeSSELagged(t *testing.T) {
	t.Parallel()
	h := NewHub(1)
	sub := h.Subscribe(UserTopic("1"))
	h.Publish(UserTopic("1"), Event{ID: "1", Data: []byte("a")})
	h.Publish(UserTopic("1"), Event{ID: "2", Data: []byte("b")}) // buffer full: dropped
	rec := httptest.NewRecorder()
	err := ServeSSE(context.Background(), rec, sub, StreamOptions{Heartbeat: -1})
	if !errors.Is(err, ErrStreamLagged) {
		t.Errorf("err = %v, want ErrStreamLagged", err)
	}
	if rec.Body.String() != "id: 1\ndata: a\n\n" {
		t.Errorf("body = %q", rec.Body.String())
	}
}

func TestLastEventID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header, query, want string
	}{
		{"12", "", "12"},
		{"", "9", "9"},
		{"12", "9", "12"},
		{"", "", ""},
		{"a\x00b", "", ""},
		{strings.Repeat("x", 201), "5", "5"},
	} {
		r := httptest.NewRequest("GET", "/v1/stream?last_event_id="+tc.query, nil)
		if tc.header != "" {
			r.Header["Last-Event-Id"] = []string{tc.header}
		}
		if got := LastEventID(r); got != tc.want {
			t.Errorf("header %q query %q: %q, want %q", tc.header, tc.query, got, tc.want)
		}
	}
}

// The cross-process hop carries identifiers only: what one process
// NOTIFYs, another decodes into the stream job it came from.
func TestNotifyCodec(t *testing.T) {
	t.Parallel()
	four := []StreamNote{{3, 17}, {5, 18}, {8, 19}, {13, 20}}
	for _, a := range []StreamArgs{
		{Key: "g4.v9.stream", Notes: four[:1]},
		{Key: "g4.v9.stream", GameID: 4, FromSeq: 12, ToSeq: 15},
		{Key: "g4.v9.stream", GameID: 4, FromSeq: 12, ToSeq: 15, Notes: four},
	} {
		payload, err := EncodeNotify(a)
		if err != nil || len(payload) > 300 {
			t.Fatalf("encode %+v: %q %v", a, payload, err)
		}
		if got, err := DecodeNotify(payload); err != nil || !reflect.DeepEqual(got, a) {
			t.Errorf("round trip: %+v %v, want %+v", got, err, a)
		}
	}
	for _, bad := range []string{"", "{}", "not json", `{"user_id":1}`, `{"game_id":1,"from_seq":3,"to_seq":2}`,
		`{"from_seq":3,"to_seq":4}`, `{"notes":[{"user_id":1}]}`, `{"notes":[]}`} {
		if _, err := DecodeNotify(bad); !errors.Is(err, ErrBadNotify) {
			t.Errorf("DecodeNotify(%q): %v", bad, err)
		}
	}
}

// A change that names more notifications than one NOTIFY payload holds is
// announced in several, which together name each of them once and the
// events once.
func TestNotifyPayloadsSplit(t *testing.T) {
	t.Parallel()
	a := StreamArgs{Key: "g4.v9.stream", GameID: 4, FromSeq: 12, ToSeq: 15}
	for i := range 700 {
		a.Notes = append(a.Notes, StreamNote{UserID: int64(1_000_000 + i), NotificationID: int64(9_000_000_000 + i)})
	}
	payloads, err := notifyPayloads(a)
	if err != nil || len(payloads) < 2 {
		t.Fatalf("%d payloads (%v), want several", len(payloads), err)
	}
	var notes []StreamNote
	events := 0
	for _, p := range payloads {
		if len(p) > maxNotify {
			t.Fatalf("a payload of %d bytes", len(p))
		}
		got, err := DecodeNotify(p)
		if err != nil {
			t.Fatal(err)
		}
		if got.FromSeq != 0 {
			events++
			if got.GameID != 4 || got.FromSeq != 12 || got.ToSeq != 15 {
				t.Fatalf("events %+v", got)
			}
		}
		notes = append(notes, got.Notes...)
	}
	if events != 1 || !reflect.DeepEqual(notes, a.Notes) {
		t.Fatalf("the events in %d payloads, %d of %d notes", events, len(notes), len(a.Notes))
	}
	if small, _ := notifyPayloads(StreamArgs{Key: "k", Notes: a.Notes[:3]}); len(small) != 1 {
		t.Fatalf("3 notes in %d payloads", len(small))
	}
}

// A game's stream writes a live event only while the event's seats show
// the viewer in the stream's seat (a spectator: in none); the first that
// does not ends the stream unwritten, as does one without seats.
func TestServeSSEFollowsSeat(t *testing.T) {
	t.Parallel()
	ev := func(id string, seats ...int64) Event { return Event{ID: id, Data: []byte("e" + id), Seats: seats} }
	for _, tc := range []struct {
		name   string
		seat   int
		events []Event
		body   string
		err    error
	}{
		{"seat kept, then taken by another", 1, []Event{ev("1", 5, 7), ev("2", 5, 7), ev("3", 5, 9), ev("4", 5, 7)},
			"id: 1\ndata: e1\n\nid: 2\ndata: e2\n\n", ErrSeatChanged},
		{"seat left", 1, []Event{ev("1", 5, 7), ev("2", 5, 0)}, "id: 1\ndata: e1\n\n", ErrSeatChanged},
		{"another seat now", 0, []Event{ev("1", 7, 5), ev("2", 5, 7)}, "id: 1\ndata: e1\n\n", ErrSeatChanged},
		{"spectator who takes a seat", -1, []Event{ev("1", 5, 9), ev("2", 5, 7)}, "id: 1\ndata: e1\n\n", ErrSeatChanged},
		{"event without seats", 1, []Event{{ID: "1", Data: []byte("e1")}}, "", ErrSeatChanged},
		{"seat past the table", 3, []Event{ev("1", 5, 7)}, "", ErrSeatChanged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHub(16)
			sub := h.Subscribe(GameTopic("42"))
			for _, e := range tc.events {
				h.Publish(GameTopic("42"), e)
			}
			rec := httptest.NewRecorder()
			err := ServeSSE(context.Background(), rec, sub, StreamOptions{Heartbeat: -1, Viewer: 7, Seat: tc.seat})
			if !errors.Is(err, tc.err) || rec.Body.String() != tc.body {
				t.Errorf("err %v, body %q; want %v, %q", err, rec.Body.String(), tc.err, tc.body)
			}
		})
	}
	// Without a viewer (a notification stream) events need no seats.
	h := NewHub(16)
	sub := h.Subscribe(UserTopic("7"))
	h.Publish(UserTopic("7"), Event{ID: "1", Data: []byte("n1")})
	h.Close()
	rec := httptest.NewRecorder()
	if err := ServeSSE(context.Background(), rec, sub, StreamOptions{Heartbeat: -1}); !errors.Is(err, ErrStreamClosed) || rec.Body.String() != "id: 1\ndata: n1\n\n" {
		t.Errorf("notification stream: err %v, body %q", err, rec.Body.String())
	}
}

// BenchmarkStreamSeatCheck is the per-event cost of following the seat
// (the check before each write) beside the cost of formatting the event.
func BenchmarkStreamSeatCheck(b *testing.B) {
	ev := Event{ID: "1234", Type: "event", Seats: []int64{5, 7, 9, 11},
		Data: []byte(`{"seq":1234,"version":77,"created_at":"2026-01-01T00:00:00Z","event":{"kind":"drew","seat":1,"n":2,"text":"ana draws 2 cards."}}`)}
	b.Run("check", func(b *testing.B) {
		opts := StreamOptions{Viewer: 7, Seat: 1}
		for b.Loop() {
			if !opts.follows(ev) {
				b.Fatal("not followed")
			}
		}
	})
	b.Run("spectator-check", func(b *testing.B) {
		opts := StreamOptions{Viewer: 8, Seat: -1}
		for b.Loop() {
			if !opts.follows(ev) {
				b.Fatal("not followed")
			}
		}
	})
	b.Run("format", func(b *testing.B) {
		for b.Loop() {
			FormatEvent(ev)
		}
	})
}

// scriptFeed answers Next from a script of pages, one per call, each with
// its again; past the script it returns nothing and again false.
type scriptFeed struct {
	mu    sync.Mutex
	pages []feedPage
	calls int
}

type feedPage struct {
	evs   []Event
	again bool
}

func (f *scriptFeed) Next(context.Context) ([]Event, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if len(f.pages) == 0 {
		return nil, false, nil
	}
	p := f.pages[0]
	f.pages = f.pages[1:]
	return p.evs, p.again, nil
}

func (f *scriptFeed) called() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// TestServeSSEFeed: with a Feed, what is published is a notice only: its
// content is not written, and the feed is asked. A feed that says again
// is asked again with no notice, at once after a page and after a pause
// when it returned nothing (rows it cannot read yet), so what it holds
// back goes out without a notice of its own.
func TestServeSSEFeed(t *testing.T) {
	t.Parallel()
	h := NewHub(16)
	sub := h.Subscribe(UserTopic("1"))
	feed := &scriptFeed{pages: []feedPage{
		{nil, false}, // after the backlog: nothing new
		{[]Event{{ID: "1", Data: []byte("a")}}, true}, // a full page: ask at once
		{nil, true}, // a row not readable yet
		{nil, true},
		{[]Event{{ID: "3", Data: []byte("c")}, {ID: "2", Data: []byte("b")}}, false},
	}}
	// Three notices waiting at once, one with content of its own.
	h.Publish(UserTopic("1"), Event{ID: "9", Data: []byte("not this")})
	h.Publish(UserTopic("1"), Event{})
	h.Publish(UserTopic("1"), Event{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	defer time.AfterFunc(10*time.Second, func() { pw.CloseWithError(errors.New("nothing more within 10 s")) }).Stop()
	rec := &pipeWriter{header: http.Header{}, w: pw}
	done := make(chan error, 1)
	go func() {
		done <- ServeSSE(ctx, rec, sub, StreamOptions{Heartbeat: -1, Feed: feed,
			Backlog: []Event{{ID: "0", Data: []byte("backlog")}}})
		pw.Close()
	}()
	evs, _ := readSSE(t, bufio.NewScanner(pr), 4)
	want := []sseEvent{{"0", "", "backlog"}, {"1", "", "a"}, {"3", "", "c"}, {"2", "", "b"}}
	if fmt.Sprint(evs) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", evs, want)
	}
	time.Sleep(50 * time.Millisecond)
	if n := feed.called(); n != 5 {
		t.Errorf("the feed was asked %d times, want 5", n)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("ServeSSE: %v", err)
	}
}

// pipeWriter is an http.ResponseWriter that writes to a pipe, for reading
// a stream as it is written.
type pipeWriter struct {
	header http.Header
	w      io.Writer
}

func (p *pipeWriter) Header() http.Header         { return p.header }
func (p *pipeWriter) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *pipeWriter) WriteHeader(int)             {}

// TestServeSSEFeedAtHeartbeat: a row no notice announced (its change
// began before the stream's presence row was written) goes out at the
// next heartbeat.
func TestServeSSEFeedAtHeartbeat(t *testing.T) {
	t.Parallel()
	h := NewHub(16)
	sub := h.Subscribe(UserTopic("1"))
	feed := &scriptFeed{pages: []feedPage{{nil, false}, {[]Event{{ID: "1", Data: []byte("unannounced")}}, false}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	defer time.AfterFunc(10*time.Second, func() { pw.CloseWithError(errors.New("nothing within 10 s")) }).Stop()
	go func() {
		ServeSSE(ctx, &pipeWriter{header: http.Header{}, w: pw}, sub, StreamOptions{Heartbeat: 30 * time.Millisecond, Feed: feed})
		pw.Close()
	}()
	evs, comments := readSSE(t, bufio.NewScanner(pr), 1)
	if fmt.Sprint(evs) != fmt.Sprint([]sseEvent{{"1", "", "unannounced"}}) || len(comments) == 0 {
		t.Fatalf("events %v after comments %v, want the unannounced one after a heartbeat", evs, comments)
	}
}

// TestServeSSECatch: a game's stream asks Catch at every heartbeat for
// the stored events after the last one it wrote, writes them in order,
// and skips them when they come live later (or published again). An
// error from Catch waits for the next heartbeat; ErrSeatChanged ends the
// stream.
func TestServeSSECatch(t *testing.T) {
	t.Parallel()
	ev := func(n int64) Event {
		return Event{ID: strconv.FormatInt(n, 10), Data: []byte(fmt.Sprint("e", n)), Seats: []int64{7, 9}}
	}
	h := NewHub(16)
	sub := h.Subscribe(GameTopic("42"))
	caught, once := make(chan struct{}), sync.Once{}
	var asked []int64 // by the stream's goroutine only
	catch := func(_ context.Context, last int64) ([]Event, error) {
		asked = append(asked, last)
		switch {
		case len(asked) == 1:
			return nil, errors.New("the database does not answer") // let go until the next heartbeat
		case last >= 4:
			return nil, ErrSeatChanged
		case last == 3:
			once.Do(func() { close(caught) })
			return nil, nil
		}
		return []Event{ev(last + 1)}, nil // a page of one
	}
	done := make(chan error, 1)
	rec := httptest.NewRecorder()
	go func() {
		done <- ServeSSE(context.Background(), rec, sub,
			StreamOptions{Backlog: []Event{ev(1)}, Heartbeat: 20 * time.Millisecond, Catch: catch, Viewer: 7, Seat: 0})
	}()
	select {
	case <-caught:
	case <-time.After(10 * time.Second):
		t.Fatal("Catch was not asked up to the last stored event within 10 s")
	}
	for _, n := range []int64{2, 3, 4, 3} {
		h.Publish(GameTopic("42"), ev(n))
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end within 10 s")
	}
	body := strings.ReplaceAll(rec.Body.String(), ": ping\n\n", "")
	want := "id: 1\ndata: e1\n\nid: 2\ndata: e2\n\nid: 3\ndata: e3\n\nid: 4\ndata: e4\n\n"
	if !errors.Is(err, ErrSeatChanged) || body != want {
		t.Errorf("err %v, body %q; want ErrSeatChanged, %q", err, body, want)
	}
	if !slices.Equal(asked[:4], []int64{1, 1, 2, 3}) {
		t.Errorf("Catch was asked after %v, want 1 (an error), 1, 2, 3 first", asked)
	}
}
