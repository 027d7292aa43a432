package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/engine/bot"
)

const simulateUsage = `usage: datamonsters simulate [flags]

Plays bot games and prints win rates per deck and per seat, mean turns per
game, games that could not finish, and games per second.

Seat i plays the (i mod len)th deck of --decks. Game g uses setup seed
--seed+g; its bots are seeded from the same number and their seat. A shared
win counts as 1/k of a win for each of the k winners. With --log, every
action of every game is printed first, in words as the seat that chose it
reads it, one line each ("game 3 turn 2 Seat 1: End your turn").
`

// simConfig is the parsed command line of simulate.
type simConfig struct {
	games, players, maxTurns, workers int
	decks                             []engine.Deck
	seed                              uint64
	bot                               string
	mode                              engine.Mode
	office                            bool
	policy                            engine.Policy
	log                               bool
}

// runSimulate runs the simulate command. It returns 0 on success; on
// failure it exits with status 1 (a game failed) or 2 (bad arguments)
// itself, so a caller that ignores the result still exits non-zero.
func runSimulate(args []string) int {
	code := simulate(args, os.Stdout, os.Stderr)
	if code != 0 {
		os.Exit(code)
	}
	return 0
}

// simulate is runSimulate with its output streams; it returns the exit code:
// 0 when every game ran, 1 when a game failed, 2 for bad arguments.
func simulate(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseSimulate(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "datamonsters simulate:", err)
		return 2
	}
	st, err := runGames(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "datamonsters simulate:", err)
		return 1
	}
	for _, l := range st.logs {
		io.WriteString(stdout, l)
	}
	st.print(stdout, cfg)
	return 0
}

func parseSimulate(args []string, stderr io.Writer) (simConfig, error) {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, simulateUsage, "\nflags:\n")
		fs.PrintDefaults()
	}
	var cfg simConfig
	var decks, mode, policy string
	fs.IntVar(&cfg.games, "games", 100, "number of games to play")
	fs.IntVar(&cfg.players, "players", 2, "players per game (2-4)")
	fs.StringVar(&decks, "decks", "running-a-startup,working-for-the-enterprise", "comma-separated prebuilt deck ids (or names), dealt to seats in turn")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the first game")
	fs.StringVar(&cfg.bot, "bot", "greedy", "bot for every seat: greedy or random")
	fs.StringVar(&mode, "mode", "standard", "challenge deck: standard or fast")
	fs.BoolVar(&cfg.office, "office", false, "office variant: one shared deck made of two copies of each listed deck, within the office copy limits")
	fs.StringVar(&policy, "policy", "holders", "interrupt policy: holders or conceal")
	fs.IntVar(&cfg.maxTurns, "max-turns", 200, "a game still running after this many turns counts as not finished")
	fs.IntVar(&cfg.workers, "workers", 1, "games played in parallel (games per second is then for all workers together)")
	fs.BoolVar(&cfg.log, "log", false, "print every action of every game in words, in game order, before the summary")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case cfg.games < 1:
		return cfg, fmt.Errorf("--games must be at least 1")
	case cfg.players < engine.MinPlayers || cfg.players > engine.MaxPlayers:
		return cfg, fmt.Errorf("--players must be %d to %d", engine.MinPlayers, engine.MaxPlayers)
	case cfg.bot != "greedy" && cfg.bot != "random":
		return cfg, fmt.Errorf("--bot must be greedy or random, not %q", cfg.bot)
	case cfg.maxTurns < 1:
		return cfg, fmt.Errorf("--max-turns must be at least 1")
	case cfg.workers < 1:
		return cfg, fmt.Errorf("--workers must be at least 1")
	}
	cfg.mode = engine.Mode(mode)
	if cfg.mode != engine.ModeStandard && cfg.mode != engine.ModeFast {
		return cfg, fmt.Errorf("--mode must be standard or fast, not %q", mode)
	}
	cfg.policy = engine.Policy(policy)
	if cfg.policy != engine.Holders && cfg.policy != engine.Conceal {
		return cfg, fmt.Errorf("--policy must be holders or conceal, not %q", policy)
	}
	cat := engine.Standard()
	for _, name := range strings.Split(decks, ",") {
		d, ok := findDeck(cat, strings.TrimSpace(name))
		if !ok {
			var known []string
			for _, d := range cat.Decks() {
				known = append(known, d.ID)
			}
			return cfg, fmt.Errorf("no prebuilt deck %q (known: %s)", name, strings.Join(known, ", "))
		}
		cfg.decks = append(cfg.decks, d)
	}
	return cfg, nil
}

// findDeck finds a prebuilt deck by id or, ignoring case, by name.
func findDeck(cat *engine.Catalog, name string) (engine.Deck, bool) {
	if d, ok := cat.Deck(name); ok {
		return d, true
	}
	for _, d := range cat.Decks() {
		if strings.EqualFold(d.Name, name) {
			return d, true
		}
	}
	return engine.Deck{}, false
}

// officeDeck combines two copies of each deck, capping every card at the
// office copy limit.
func officeDeck(decks []engine.Deck) engine.Deck {
	return engine.Standard().OfficeDeck(append(slices.Clone(decks), decks...))
}

// setupFor is the setup of game g.
func (cfg simConfig) setupFor(g int) engine.Setup {
	st := engine.Setup{Seed: cfg.seed + uint64(g), Mode: cfg.mode, Office: cfg.office, Policy: cfg.policy}
	for i := range cfg.players {
		st.Players = append(st.Players, engine.SeatSetup{Name: fmt.Sprintf("Seat %d", i), Deck: cfg.decks[i%len(cfg.decks)]})
	}
	if cfg.office {
		st.OfficeDeck = officeDeck(cfg.decks)
	}
	return st
}

func (cfg simConfig) botsFor(g int) []bot.Bot {
	out := make([]bot.Bot, cfg.players)
	for i := range out {
		r := rand.New(rand.NewPCG(cfg.seed+uint64(g), uint64(i)))
		if cfg.bot == "random" {
			out[i] = bot.NewRandom(r)
		} else {
			out[i] = bot.NewGreedy(r)
		}
	}
	return out
}

// simStats sums up the games.
type simStats struct {
	games, finished, turns, actions int
	deckWins                        map[string]float64 // deck id -> wins
	seatWins, orderWins             []float64          // by seat; by turn order (0 = first player)
	elapsed                         time.Duration
	logs                            []string // with --log: each game's actions in words
}

func runGames(cfg simConfig) (*simStats, error) {
	st := &simStats{deckWins: map[string]float64{}, seatWins: make([]float64, cfg.players), orderWins: make([]float64, cfg.players)}
	results := make([]bot.Result, cfg.games)
	errs := make([]error, cfg.games)
	if cfg.log {
		st.logs = make([]string, cfg.games)
	}
	start := time.Now()
	var wg sync.WaitGroup
	next := make(chan int)
	for range cfg.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range next {
				var log bot.Logger
				var b strings.Builder
				if cfg.log {
					setup := cfg.setupFor(g)
					log = func(turn, seat int, text string) {
						fmt.Fprintf(&b, "game %d turn %d %s: %s\n", g+1, turn, setup.Players[seat].Name, text)
					}
				}
				results[g], errs[g] = bot.PlayLog(cfg.setupFor(g), cfg.botsFor(g), cfg.maxTurns, log)
				if cfg.log {
					st.logs[g] = b.String()
				}
			}
		}()
	}
	for g := range cfg.games {
		next <- g
	}
	close(next)
	wg.Wait()
	st.elapsed = time.Since(start)
	for g, res := range results {
		if errs[g] != nil {
			return nil, fmt.Errorf("game %d (seed %d): %w", g, cfg.seed+uint64(g), errs[g])
		}
		st.add(cfg, res)
	}
	return st, nil
}

func (st *simStats) add(cfg simConfig, res bot.Result) {
	st.games++
	st.actions += res.Actions
	if !res.Finished {
		return
	}
	st.finished++
	st.turns += res.Turns
	share := 1 / float64(len(res.Winners))
	for _, w := range res.Winners {
		st.seatWins[w] += share
		st.orderWins[(w-res.First+cfg.players)%cfg.players] += share
		st.deckWins[cfg.decks[w%len(cfg.decks)].ID] += share
	}
}

func (st *simStats) print(w io.Writer, cfg simConfig) {
	fair := 1 / float64(cfg.players)
	variant := ""
	if cfg.office {
		variant = ", office"
	}
	fmt.Fprintf(w, "%d games, %d players, %s bots, %s mode%s, %s policy, seeds %d-%d\n",
		st.games, cfg.players, cfg.bot, cfg.mode, variant, cfg.policy, cfg.seed, cfg.seed+uint64(st.games)-1)
	fmt.Fprintf(w, "finished %d, could not finish %d (turn cap %d)\n", st.finished, st.games-st.finished, cfg.maxTurns)
	if st.finished > 0 {
		fmt.Fprintf(w, "mean turns per game %.1f\n", float64(st.turns)/float64(st.finished))
	}
	fmt.Fprintf(w, "mean actions per game %.1f\n", float64(st.actions)/float64(st.games))
	fmt.Fprintf(w, "games per second %.1f (%d worker(s), %s)\n", float64(st.games)/st.elapsed.Seconds(), cfg.workers, st.elapsed.Round(time.Millisecond))
	n := float64(max(st.finished, 1))
	fmt.Fprintf(w, "\nwin rate per deck (per seat playing it; fair share %.3f)\n", fair)
	seen := map[string]bool{}
	for _, d := range cfg.decks {
		if seen[d.ID] {
			continue
		}
		seen[d.ID] = true
		seats := 0
		for i := range cfg.players {
			if cfg.decks[i%len(cfg.decks)].ID == d.ID {
				seats++
			}
		}
		note := ""
		if cfg.office {
			note = "  (office: every seat draws from the shared deck)"
		}
		fmt.Fprintf(w, "  %-28s %.3f  (%d seat(s))%s\n", d.ID, st.deckWins[d.ID]/(n*float64(seats)), seats, note)
	}
	fmt.Fprintf(w, "\nwin rate per seat\n")
	for i, x := range st.seatWins {
		fmt.Fprintf(w, "  seat %d  %.3f\n", i, x/n)
	}
	fmt.Fprintf(w, "\nwin rate by turn order\n")
	for i, x := range st.orderWins {
		fmt.Fprintf(w, "  %-7s %.3f\n", ordinal(i+1), x/n)
	}
}

func ordinal(n int) string {
	switch n {
	case 1:
		return "first"
	case 2:
		return "second"
	case 3:
		return "third"
	}
	return "fourth"
}
