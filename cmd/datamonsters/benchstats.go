package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime/metrics"
)

// benchStatsPath is where the bench's own server answers what it has cost
// so far (serverStats as JSON); no other server has it.
const benchStatsPath = "/bench/stats"

// serverStats is what a process has cost since it started: the CPU time of
// all its threads (user + system; -1 where it is not read) and the bytes
// its heap has allocated.
type serverStats struct {
	CPUNanos   int64  `json:"cpu_ns"`
	AllocBytes uint64 `json:"alloc_bytes"`
}

// readServerStats reads this process's serverStats.
func readServerStats() serverStats {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return serverStats{CPUNanos: processCPU(), AllocBytes: s[0].Value.Uint64()}
}

// withBenchStats serves benchStatsPath beside h, for the bench's clients to
// read the server's cost before and after each phase.
func withBenchStats(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != benchStatsPath {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(readServerStats())
	})
}

// stats reads the server's serverStats, or reports false when the server
// does not give them (a server other than the bench's own).
func (b *bench) stats() (serverStats, bool) {
	status, data := b.try("GET", benchStatsPath, "", nil)
	var s serverStats
	if status != http.StatusOK || json.Unmarshal(data, &s) != nil {
		return s, false
	}
	return s, true
}

// costMeter measures what the server spends on one phase: start it before
// the phase, and report with the number of units (accepted actions,
// requests) the phase did.
type costMeter struct {
	b      *bench
	whose  string // whose cost the figures are: the server alone, or the process with its clients
	before serverStats
	ok     bool
}

func (b *bench) meter() *costMeter {
	m := &costMeter{b: b, whose: b.whose}
	m.before, m.ok = b.stats()
	return m
}

// report prints line.
func (m *costMeter) report(units int64, unit string) {
	if line := m.line(units, unit); line != "" {
		fmt.Println(line)
	}
}

// line says the server's CPU time and allocated bytes per unit since the
// meter started; "" when the server gives no figures or the phase did
// nothing.
func (m *costMeter) line(units int64, unit string) string {
	after, ok := m.b.stats()
	if !m.ok || !ok || units <= 0 {
		return ""
	}
	alloc := fmt.Sprintf("%.1f KB allocated", float64(after.AllocBytes-m.before.AllocBytes)/float64(units)/1024)
	if m.before.CPUNanos < 0 || after.CPUNanos < 0 {
		return fmt.Sprintf("  %s: %s per %s", m.whose, alloc, unit)
	}
	cpu := float64(after.CPUNanos-m.before.CPUNanos) / float64(units) / 1e6
	return fmt.Sprintf("  %s: %.3f ms of CPU and %s per %s", m.whose, cpu, alloc, unit)
}
