package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/datamonsters/turns/accounts"
	"github.com/datamonsters/turns/api"
	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
	"github.com/datamonsters/turns/internal/gcpace"
	"github.com/datamonsters/turns/play"
)

// runBench measures the API over real HTTP on loopback against the
// configured database (use a scratch database: it creates users and games):
// accepted action submissions per second and their latency with N
// concurrent clients each playing its own game, GET of a game likewise, and
// the cost of a submission at turn 3 against turn 300 of a game.
func runBench(args []string) int {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	clients := fs.Int("clients", 16, "concurrent clients")
	dur := fs.Duration("duration", 15*time.Second, "length of each timed phase")
	longTurn := fs.Int("long-turn", 300, "the late turn compared with turn 3")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the run to this file")
	outbox := fs.Bool("outbox", true, "write the notification jobs in each change's transaction and run their workers, as serve does")
	clientsProcess := fs.Bool("clients-process", false, "run the clients in a child process, so that this process (and its profiles) is the server alone")
	target := fs.String("target", "", "drive the server at this base URL instead of one in this process")
	phaseList := fs.String("phases", "single,turns,get,late", "the phases to run, of single (one action per submission), turns (a turn's actions per submission), get and late (turn 300 against turns 2-5)")
	fs.Parse(args)
	phases := map[string]bool{}
	for _, p := range strings.Split(*phaseList, ",") {
		if !slices.Contains([]string{"single", "turns", "get", "late"}, p) {
			fatal(fmt.Errorf("bench: unknown phase %q in -phases", p))
		}
		phases[p] = true
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if *memProfile != "" {
		defer func() {
			f, err := os.Create(*memProfile)
			if err != nil {
				fatal(err)
			}
			defer f.Close()
			pprof.Lookup("allocs").WriteTo(f, 0)
		}()
	}
	base := *target
	if base == "" {
		cfg, err := loadConfig(os.Getenv)
		if err != nil {
			fatal(err)
		}
		gcpace.Apply(cfg.GOGCSet, cfg.GoMemLimitSet) // the server as serve runs it
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st, _ := openStore(ctx, cfg)
		defer st.Close()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fatal(err)
		}
		log := slog.New(slog.NewJSONHandler(io.Discard, nil))
		pl := play.New(st, nil, log)
		var vacations accounts.VacationNotice
		var n *notifications
		if *outbox {
			started := startNotifications(ctx, cfg, st, pl, nil, log)
			defer started.stop()
			n, vacations = &started, started.outbox
		}
		acfg := accountsConfig(cfg, vacations, nil)
		acfg.LoginBurst, acfg.LoginAddressBurst, acfg.RegisterBurst = 1<<20, 1<<20, 1<<20 // every client registers and logs in from one address
		as := api.New(st, pl, accounts.New(st, pl, acfg, log, nil), apiConfig(cfg), log, nil)
		if n != nil {
			as.SetNotifications(n.forAPI(cfg, nil))
		}
		srv := &http.Server{Handler: withBenchStats(as.Handler())}
		go srv.Serve(ln)
		defer srv.Close()
		base = "http://" + ln.Addr().String()
		fmt.Printf("database: %s; outbox jobs: %t; clients in a child process: %t\n", st.Dialect(), *outbox, *clientsProcess)
		if *clientsProcess {
			exe, err := os.Executable()
			if err != nil {
				fatal(err)
			}
			cmd := exec.Command(exe, "bench", "-target", base, "-clients", strconv.Itoa(*clients),
				"-duration", dur.String(), "-long-turn", strconv.Itoa(*longTurn), "-phases", *phaseList)
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
			if err := cmd.Run(); err != nil {
				fatal(err)
			}
			return 0
		}
	}
	b := &bench{base: base, run: fmt.Sprintf("%x", time.Now().UnixNano()%0xffffff),
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4 * *clients}}, whose: "server alone"}
	if *target == "" {
		b.whose = "server and clients in one process"
	}
	fmt.Printf("%d clients over HTTP on loopback to %s; %s per phase\n", *clients, base, *dur)

	tables := make([]*table, *clients)
	parallel(*clients, func(i int) { tables[i] = b.newTable(i) })

	// Phase 1: accepted submissions per second, each client playing its own
	// game with a random bot, one action per submission; a finished game is
	// replaced by a new one. Phase 1b: the same with each turn sent as one
	// batch, as a player composes it (see plan): accepted actions per second.
	for _, phase := range []string{"single", "turns"} {
		if !phases[phase] {
			continue
		}
		turns := phase == "turns"
		lat := make([][]time.Duration, *clients)
		var actions, rejected atomic.Int64
		deadline := time.Now().Add(*dur)
		cost := b.meter()
		start := time.Now()
		parallel(*clients, func(i int) {
			t := tables[i]
			for time.Now().Before(deadline) {
				s := t.step(b, false, turns)
				lat[i] = append(lat[i], s.latency)
				actions.Add(int64(s.actions))
				rejected.Add(int64(s.rejected))
				if s.over {
					t.newGame(b)
				}
			}
		})
		elapsed := time.Since(start)
		if !turns {
			report("POST /v1/games/{id}/actions (accepted, one action each)", lat, elapsed)
			cost.report(actions.Load(), "accepted action")
			continue
		}
		report("POST /v1/games/{id}/actions (accepted, a turn's actions each)", lat, elapsed)
		n := len(flat(lat))
		fmt.Printf("  accepted actions: %d in %.1fs = %.0f/s; %.1f actions per submission; %d batches rejected and resent shorter\n",
			actions.Load(), elapsed.Seconds(), float64(actions.Load())/elapsed.Seconds(), float64(actions.Load())/float64(max(n, 1)), rejected.Load())
		cost.report(actions.Load(), "accepted action")
	}

	if phases["get"] {
		benchGets(b, tables, *dur)
	}
	if phases["late"] {
		benchLate(b, *clients, *longTurn, *dur)
	}
	return 0
}

// benchGets is phase 2: GET of a game by its players, each client reading
// its game as each of its two players in turn.
func benchGets(b *bench, tables []*table, dur time.Duration) {
	clients := len(tables)
	lat := make([][]time.Duration, clients)
	deadline := time.Now().Add(dur)
	cost := b.meter()
	start := time.Now()
	parallel(clients, func(i int) {
		t := tables[i]
		for n := 0; time.Now().Before(deadline); n++ {
			t0 := time.Now()
			b.call("GET", fmt.Sprintf("/v1/games/%d", t.id), t.tokens[n%2], nil, nil)
			lat[i] = append(lat[i], time.Since(t0))
		}
	})
	report("GET /v1/games/{id}", lat, time.Since(start))
	cost.report(int64(len(flat(lat))), "request")
}

// benchLate is phase 3: the cost of a submission late in a game against
// early in one, side by side under the same load. Each client plays a game
// to the late turn by ending turns (untimed), then alternates a submission
// to it with one to a fresh game at turns 2-5 of its own, until the phase's
// time is up. Both games only end turns and answer prompts.
func benchLate(b *bench, clients, longTurn int, dur time.Duration) {
	long, short := make([]*table, clients), make([]*table, clients)
	parallel(clients, func(i int) {
		long[i], short[i] = b.newTable(i+clients), b.newTable(i+2*clients)
		for long[i].turn < longTurn {
			long[i].mustStep(b)
		}
	})
	early, late := make([][]time.Duration, clients), make([][]time.Duration, clients)
	deadline := time.Now().Add(dur)
	parallel(clients, func(i int) {
		for time.Now().Before(deadline) {
			if short[i].turn > 5 {
				short[i].newGame(b)
			}
			if short[i].turn < 2 {
				short[i].mustStep(b)
				continue
			}
			early[i] = append(early[i], short[i].mustStep(b))
			late[i] = append(late[i], long[i].mustStep(b))
		}
	})
	e, l := median(flat(early)), median(flat(late))
	fmt.Printf("turn cost: p50 %s at turns 2-5, %s at turn %d and after: ratio %.2f (%d submissions each)\n", ms(e), ms(l), longTurn,
		float64(l)/float64(e), len(flat(late)))
}

type bench struct {
	base, run string
	http      *http.Client
	whose     string // whose cost the stats endpoint tells (see costMeter)
}

// table is one client's game: two players driven by one client.
type table struct {
	id      int64
	tokens  [2]string
	version int64
	turn    int
	await   int
	legal   []legalEntry      // the awaited seat's legal actions, when the last response gave them
	hand    []engine.CardView // the awaited seat's hand, with legal
	rng     *rand.Rand
}

// benchTurn is what a client reads of a turn result or a game detail.
type benchTurn struct {
	Version int64  `json:"version"`
	Status  string `json:"status"`
	View    struct {
		Seat     int               `json:"seat"`
		Turn     int               `json:"turn"`
		Awaiting []int             `json:"awaiting"`
		Hand     []engine.CardView `json:"hand"`
	} `json:"view"`
	Legal []legalEntry `json:"legal"`
}

// legalEntry is what a client reads of one legal action: an action to
// submit as it is, or an open prompt (an answer without choices) with the
// description of its answers.
type legalEntry struct {
	engine.Action
	Min     int             `json:"min"`
	Max     int             `json:"max"`
	Options []engine.Option `json:"options"`
}

// action is the entry as a client submits it: a prompt gets a random answer
// its description admits.
func (l legalEntry) action(r *rand.Rand) engine.Action {
	a := l.Action
	if a.Type == engine.ActAnswer && a.Choices == nil {
		a.Choices = bot.RandomAnswer(r, &engine.Prompt{Min: l.Min, Max: l.Max, Options: l.Options})
	}
	return a
}

func (b *bench) call(method, path, token string, body, out any) int {
	status, data := b.try(method, path, token, body)
	if status >= 400 {
		fatal(fmt.Errorf("%s %s: %d %s", method, path, status, data))
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			fatal(err)
		}
	}
	return status
}

// try makes a request and returns its status and body, whatever the status.
func (b *bench) try(method, path, token string, body any) (int, []byte) {
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, b.base+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := b.http.Do(req)
	if err != nil {
		fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, data
}

// newTable registers two players (argon2id hashing: done before the timed
// phases) and starts a 2-player game for them.
func (b *bench) newTable(i int) *table {
	t := &table{rng: rand.New(rand.NewPCG(uint64(i), 7))}
	for s := range 2 {
		var tok struct {
			Access string `json:"access_token"`
		}
		name := fmt.Sprintf("b%s-%d-%d-%d", b.run, i, s, time.Now().UnixNano()%1e9)
		b.call("POST", "/v1/auth/register", "", map[string]string{"username": name, "password": "bench-password"}, &tok)
		t.tokens[s] = tok.Access
	}
	t.newGame(b)
	return t
}

// newGame starts a new 2-player game for the table's players.
func (t *table) newGame(b *bench) {
	var g struct {
		ID int64 `json:"id"`
	}
	b.call("POST", "/v1/games", t.tokens[0], map[string]any{"players": 2, "deck": map[string]string{"prebuilt": "running-a-startup"}}, &g)
	t.id = g.ID
	b.call("POST", fmt.Sprintf("/v1/games/%d/join", g.ID), t.tokens[1], map[string]any{"deck": map[string]string{"prebuilt": "working-for-the-enterprise"}}, nil)
	var tr benchTurn
	b.call("POST", fmt.Sprintf("/v1/games/%d/start", g.ID), t.tokens[0], nil, &tr)
	t.observe(tr)
}

// observe keeps what a response tells: the version, the turn, the seat
// awaited next and, when that is the seat that acted, its legal actions.
func (t *table) observe(tr benchTurn) {
	t.version, t.turn, t.legal = tr.Version, tr.View.Turn, nil
	if len(tr.View.Awaiting) > 0 {
		t.await = tr.View.Awaiting[0]
	}
	if t.await == tr.View.Seat && len(tr.Legal) > 0 {
		t.legal, t.hand = tr.Legal, tr.View.Hand
	}
}

// stepped is what one step did: the latency of its accepted submission,
// the actions it carried, the longer batches rejected before it (an action
// became illegal after the ones before it), and whether the game is over.
type stepped struct {
	latency  time.Duration
	actions  int
	rejected int
	over     bool
}

// step makes one accepted submission for the awaited seat. The seat's
// legal actions come from the response to its previous action, or else
// from the game detail (a seat whose turn just began). endTurns prefers
// end_turn, so the game never ends; turns sends a whole turn at once (see
// plan). A batch refused because one of its actions turned out illegal is
// sent again without that action and those after it.
func (t *table) step(b *bench, endTurns, turns bool) stepped {
	if t.legal == nil {
		var g benchTurn
		b.call("GET", fmt.Sprintf("/v1/games/%d", t.id), t.tokens[t.await], nil, &g)
		t.version, t.legal, t.hand = g.Version, g.Legal, g.View.Hand
	}
	if len(t.legal) == 0 {
		fatal(errors.New("awaited seat has no legal actions"))
	}
	batch := []engine.Action{pick(t.rng, t.legal, endTurns)}
	if turns {
		if p := plan(t.legal, t.hand); p != nil {
			batch = p
		}
	}
	out := stepped{}
	path := fmt.Sprintf("/v1/games/%d/actions", t.id)
	for {
		t0 := time.Now()
		status, data := b.try("POST", path, t.tokens[t.await], map[string]any{"expected_version": t.version, "actions": batch})
		d := time.Since(t0)
		if status == http.StatusOK {
			var tr benchTurn
			if err := json.Unmarshal(data, &tr); err != nil {
				fatal(err)
			}
			t.observe(tr)
			out.latency, out.actions, out.over = d, len(batch), tr.Status != "active"
			return out
		}
		var p api.Problem
		json.Unmarshal(data, &p)
		if status != http.StatusUnprocessableEntity || p.Code != "illegal_action" || p.Index == nil || *p.Index == 0 {
			fatal(fmt.Errorf("POST %s: %d %s", path, status, data))
		}
		out.rejected++
		batch = batch[:*p.Index]
	}
}

// mustStep is step with endTurns for a game that must not end.
func (t *table) mustStep(b *bench) time.Duration {
	s := t.step(b, true, false)
	if s.over {
		fatal(fmt.Errorf("game %d ended while only ending turns", t.id))
	}
	return s.latency
}

// pick chooses a claim when there is one, else a random action other than
// abandoning a build; with endTurns, end_turn whenever it is legal.
// A prompt gets a random answer its description admits.
func pick(r *rand.Rand, legal []legalEntry, endTurns bool) engine.Action {
	for _, l := range legal {
		if (endTurns && l.Type == engine.ActEndTurn) || (!endTurns && l.Type == engine.ActClaim) {
			return l.Action
		}
	}
	for range 16 {
		if l := legal[r.IntN(len(legal))]; l.Type != engine.ActAbandon && !(endTurns && l.Type == engine.ActVoteEnd) && l.Type != engine.ActResign {
			return l.action(r)
		}
	}
	return legal[0].action(r)
}

// plan composes a whole turn the way a player writes it from what the seat
// sees, or returns nil when the seat is not in its Action phase (end_turn is
// not legal: it has a prompt to answer). The turn plays every card the legal
// actions let it place or play as a Tool, Tools first, then the first legal
// claim, then ends the turn. Hacks stay in hand (their effects may ask the
// seat to choose, which would stop the batch), and so does every limit card
// after the first. An action that turns out illegal once the ones before it
// ran (a card's effect changed the situation) makes the server refuse the
// batch with its index; step sends it again shorter.
func plan(legal []legalEntry, hand []engine.CardView) []engine.Action {
	if !slices.ContainsFunc(legal, func(l legalEntry) bool { return l.Type == engine.ActEndTurn }) {
		return nil
	}
	cat := engine.Standard()
	limited := false
	var tools, places, claim []engine.Action
	for _, l := range legal {
		a := l.Action
		switch a.Type {
		case engine.ActPlace, engine.ActPlayTool:
			i := slices.IndexFunc(hand, func(c engine.CardView) bool { return c.ID == a.Card })
			if i < 0 {
				continue
			}
			if c := cat.Card(hand[i].Card); c != nil && c.Has(engine.KwLimit) {
				if limited {
					continue
				}
				limited = true
			}
			if a.Type == engine.ActPlayTool {
				tools = append(tools, a)
			} else {
				places = append(places, a)
			}
		case engine.ActClaim:
			if claim == nil {
				claim = []engine.Action{a}
			}
		}
	}
	out := slices.Concat(tools, claim, places)
	return append(out, engine.Action{Type: engine.ActEndTurn})
}

func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); f(i) }()
	}
	wg.Wait()
}

func flat(l [][]time.Duration) []time.Duration {
	var out []time.Duration
	for _, x := range l {
		out = append(out, x...)
	}
	slices.Sort(out)
	return out
}

func median(sorted []time.Duration) time.Duration { return quantile(sorted, 0.5) }

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/1e6) }

func report(what string, lat [][]time.Duration, elapsed time.Duration) {
	all := flat(lat)
	fmt.Printf("%s: %d in %.1fs = %.0f/s; p50 %s, p99 %s\n", what, len(all), elapsed.Seconds(),
		float64(len(all))/elapsed.Seconds(), ms(quantile(all, 0.5)), ms(quantile(all, 0.99)))
}
