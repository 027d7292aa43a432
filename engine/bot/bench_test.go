package bot

import (
	"github.com/datamonsters/turns/engine"
	"runtime"
	"testing"
)

// BenchmarkGame2P plays complete 2-player games between Random bots with
// Play, from NewGame to the end: each decision is built from the awaited
// seats, the legal actions and the seat's view, as a client would (Run
// reuses their memory), and applied without events. It reports games per
// second (wall and process CPU time), actions per game and allocations per
// action:
//
//	go test -run XXX -bench Game -cpu 1 ./engine/...
func BenchmarkGame2P(b *testing.B) {
	benchGames(b, 2, "random")
}

// BenchmarkGame2PGreedy is BenchmarkGame2P with Greedy bots.
func BenchmarkGame2PGreedy(b *testing.B) {
	benchGames(b, 2, "greedy")
}

// BenchmarkGame4P plays complete 4-player games between Random bots.
func BenchmarkGame4P(b *testing.B) {
	benchGames(b, 4, "random")
}

func benchGames(b *testing.B, players int, kind string) {
	setups := make([]engine.Setup, 64)
	for i := range setups {
		setups[i] = setup(b, uint64(i), players)
	}
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	actions, unfinished := 0, 0
	seed := uint64(0)
	for b.Loop() {
		res, err := Play(setups[seed%64], bots(kind, seed, players), 2000)
		if err != nil {
			b.Fatal(err)
		}
		if !res.Finished {
			unfinished++
		}
		actions += res.Actions
		seed++
	}
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&after)
	if unfinished > 0 {
		b.Fatalf("%d games did not finish", unfinished)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(actions)/float64(b.N), "actions/game")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(max(actions, 1)), "allocs/action")
	if cpu > 0 {
		// Games per second of process CPU time: steadier than wall time on
		// a busy machine.
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "games/cpu-s")
	}
	b.ReportMetric(0, "ns/op")
}
